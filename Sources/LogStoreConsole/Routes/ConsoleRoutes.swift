import LogStore

/// The console's routes: checks every request's host and token, then answers it. Read-only,
/// always: nothing here writes to the store or the file system (downloads are exported into
/// the console's own scratch directory). Paths are the console's own: mounted under a prefix in
/// an application, the adapter strips it first, and the page's links are relative.
///
/// | route | answer |
/// |---|---|
/// | `/` | the page (`?token=…` there sets the cookie and redirects) |
/// | `/console.js`, `/console.css` | its script and style |
/// | `/api/messages`, `/api/messages/{id}` | pages of messages (``MessageFilters``), one message |
/// | `/api/context?id=` | the messages around one |
/// | `/api/summary` | counts by level and label, and the histogram |
/// | `/api/tail` | the live tail (Server-Sent Events) |
/// | `/api/tasks`, `/api/tasks/{id}`, `/api/bodies/{key}` | network tasks, one task, a body |
/// | `/api/host`, `/api/sessions`, `/api/info`, `/api/history` | the machine now, sessions, figures, history |
/// | `/api/files/{path}`, `/files/{path}` | the file browser's listing or preview, a file (with `--files`) |
/// | `/download` | the current filters as an archive, NDJSON, text, HTML or HAR |
struct ConsoleRoutes: HTTPHandler {
    /// The token and host check; nil when the application the routes are mounted in guards
    /// them with its own authentication.
    let access: ConsoleAccess?
    let messages: MessagesAPI
    let tail: TailEvents
    let tasks: TasksAPI
    let host: HostAPI
    let downloads: Downloads
    let files: FilesAPI?

    init(store: LogStore, access: ConsoleAccess?, downloads: Downloads, files: FilesAPI?) {
        self.access = access
        messages = MessagesAPI(store: store)
        tail = TailEvents(store: store)
        tasks = TasksAPI(store: store)
        host = HostAPI(store: store)
        self.downloads = downloads
        self.files = files
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        do {
            let parameters = try QueryParameters(request.query)
            if let access, try access.check(request, parameters: parameters), request.path == "/" {
                // The token leaves the address bar (and the history) for the cookie.
                return HTTPResponse(
                    status: 303, headers: ResponseHeaders.common + [("Location", "/"), ("Set-Cookie", access.cookie)])
            }
            return try await route(request, parameters)
        } catch {
            return ResponseHeaders.error(error)
        }
    }

    private func route(_ request: HTTPRequest, _ parameters: QueryParameters) async throws(ConsoleRequestError) -> HTTPResponse {
        let path = request.path
        switch path {
        case "/": return ConsolePage.html(hasFiles: files != nil)
        case "/console.js": return ConsolePage.script
        case "/console.css": return ConsolePage.style
        case "/api/messages": return try await messages.page(parameters)
        case "/api/context": return try await messages.context(parameters)
        case "/api/summary": return try await messages.summary(parameters)
        case "/api/tail": return try tail.stream(request, parameters)
        case "/api/tasks": return try await tasks.page(parameters)
        case "/api/host": return host.host()
        case "/api/sessions": return try await host.sessions()
        case "/api/info": return try await host.info()
        case "/api/history": return try await host.history()
        case "/download": return try await downloads.response(request, parameters)
        default: break
        }
        if let id = try Self.segment(path, after: "/api/messages/") {
            guard let number = Int64(id), number > 0 else { throw .badRequest("a message's id is a positive number, not \(id)") }
            return try await messages.message(id: number)
        }
        if let id = try Self.segment(path, after: "/api/tasks/") { return try await tasks.task(id: id) }
        if let key = try Self.segment(path, after: "/api/bodies/") { return try await tasks.body(key: key) }
        if path == "/api/files" || path.hasPrefix("/api/files/") || path == "/files" || path.hasPrefix("/files/") {
            guard let files else { throw .notFound("this console shows no files (start it with --files DIR)") }
            if path.hasPrefix("/api/files") {
                return try await files.describe(String(path.dropFirst("/api/files".count)), parameters)
            }
            return try files.download(request, String(path.dropFirst("/files".count)))
        }
        throw .notFound("no route \(path)")
    }

    /// The one decoded path segment after `prefix`, or nil when `path` is not under it.
    private static func segment(_ path: String, after prefix: String) throws(ConsoleRequestError) -> String? {
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        guard !rest.isEmpty, !rest.contains("/"), let decoded = PercentDecoding.decode(rest, plusIsSpace: false) else {
            throw .notFound("no route \(path)")
        }
        return decoded
    }
}
