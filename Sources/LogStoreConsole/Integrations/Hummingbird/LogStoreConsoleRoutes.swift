#if Hummingbird
public import Foundation
public import Hummingbird
import HTTPTypes
public import LogStore
import ServiceLifecycle

/// The console's pages and API, for mounting in an existing Hummingbird 2 application behind
/// that application's own authentication — the same routes `logstore serve` and
/// ``LogStoreConsole`` answer, without their token and `Host` check.
///
/// ```swift
/// let console = try LogStoreConsoleRoutes(store: store)
/// router.group("console")
///     .add(middleware: AdminOnlyMiddleware())   // the application's authentication
///     .addLogStoreConsole(console)
/// // https://app.example/console/
/// ```
///
/// The routes admit every request that reaches them: mount them only behind middleware that
/// turns away whoever may not read the logs. They keep their own response headers (the strict
/// Content-Security-Policy, `nosniff`, no caching), answer GET and HEAD only, and write nothing.
/// The page's links are relative, so it works under any prefix; `/console` is redirected to
/// `/console/`.
public final class LogStoreConsoleRoutes: Sendable {
    let routes: ConsoleRoutes
    private let downloads: Downloads
    private let scratch: URL

    /// Routes over `store` (opened and closed by the application), showing the files of
    /// `filesDirectory` too when given (nothing outside it is reachable).
    /// - Throws: ``ConsoleError/filesDirectory(_:_:)`` when `filesDirectory` is not a
    ///   directory; a `CocoaError` when the temporary directory (for downloads) is not writable.
    public init(store: LogStore, filesDirectory: URL? = nil) throws {
        let files = try FilesAPI.serving(filesDirectory)
        scratch = try ScratchDirectory.make()
        downloads = Downloads(store: store, directory: scratch)
        routes = ConsoleRoutes(store: store, access: nil, downloads: downloads, files: files)
    }

    /// Removes the downloads exported so far (each is kept ten minutes for resuming); the
    /// routes go on working. Call it when the application stops; dropping the routes does it too.
    public func removeDownloads() {
        downloads.removeAll()
    }

    deinit {
        downloads.removeAll()
        ScratchDirectory.remove(scratch)
    }

    /// Answers `request`, whose path under the mount point is `path` (`/`, `/api/messages`).
    func respond(to request: Request, path: String) async -> Response {
        guard let method = HTTPMethod(rawValue: request.method.rawValue) else {
            return Self.response(ResponseHeaders.error(.badRequest("the console answers GET and HEAD only")), isHead: false)
        }
        // The page's relative links need the mount point to end in a slash.
        if path == "/", !request.uri.path.hasSuffix("/") {
            let location = request.uri.path + "/" + (request.uri.query.map { "?" + $0 } ?? "")
            return Self.response(
                HTTPResponse(status: 308, headers: ResponseHeaders.common + [("Location", location)]), isHead: method == .head)
        }
        let inner = HTTPRequest(
            method: method, path: path, query: request.uri.query,
            headers: request.headers.map { (name: $0.name.rawName, value: $0.value) }, peer: "")
        return Self.response(await routes.respond(to: inner), isHead: method == .head)
    }

    /// `response` as Hummingbird's: the same status, fields and body; a streamed body goes
    /// through an ``HTTPBodyPipe`` into Hummingbird's writer.
    static func response(_ response: HTTPResponse, isHead: Bool) -> Response {
        var fields = HTTPFields()
        for field in response.headers {
            if let name = HTTPField.Name(field.name) { fields.append(HTTPField(name: name, value: field.value)) }
        }
        let body: ResponseBody
        switch response.body {
        case .bytes(let bytes) where isHead:
            body = ResponseBody(contentLength: bytes.count) { writer in try await writer.finish(nil) }
        case .stream(let length, _) where isHead:
            body = ResponseBody(contentLength: length.flatMap { Int(exactly: $0) }) { writer in try await writer.finish(nil) }
        case .bytes(let bytes):
            body = ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        case .stream(let length, let write):
            body = streamed(length: length.flatMap { Int(exactly: $0) }, write)
        }
        return Response(status: .init(code: response.status), headers: fields, body: body)
    }

    /// A streamed body: `write` fills an ``HTTPBodyPipe`` that Hummingbird's writer drains.
    private static func streamed(
        length: Int?, _ write: @escaping @Sendable (any HTTPBodyWriter) async throws -> Void
    ) -> ResponseBody {
        ResponseBody(contentLength: length) { writer in
            let pipe = HTTPBodyPipe()
            // A body without a length (a live tail) never ends by itself: the application's
            // graceful shutdown ends it, as stop() does for serve, since the server waits for
            // open responses. A download runs to its end.
            async let produced: Void = {
                defer { pipe.finish() }
                if length == nil {
                    try await cancelWhenGracefulShutdown { try await write(pipe) }
                } else {
                    try await write(pipe)
                }
            }()
            do {
                while let chunk = await pipe.read() {
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
            } catch {
                // The client is gone: the producer's next write throws, and it ends.
                pipe.fail()
                try? await produced
                throw error
            }
            do {
                try await produced
            } catch is CancellationError where length == nil {
                // Ended by the shutdown: the stream ends cleanly (EventSource reconnects).
            }
            try await writer.finish(nil)
        }
    }
}

extension RouterMethods {
    /// Mounts `console` at this router's or group's path: the page at its root (`/console/`),
    /// the API and downloads below it. Add the application's authentication to the group first.
    @discardableResult
    public func addLogStoreConsole(_ console: LogStoreConsoleRoutes) -> Self {
        let root: @Sendable (Request, Context) async throws -> Response = { request, _ in
            await console.respond(to: request, path: "/")
        }
        // `**` catches the rest of the path, still percent-encoded: each route decodes what it
        // reads, and the file browser checks the encoded form.
        let below: @Sendable (Request, Context) async throws -> Response = { request, context in
            await console.respond(to: request, path: "/" + context.parameters.getCatchAll().joined(separator: "/"))
        }
        get("", use: root)
        head("", use: root)
        get("**", use: below)
        head("**", use: below)
        return self
    }
}
#endif
