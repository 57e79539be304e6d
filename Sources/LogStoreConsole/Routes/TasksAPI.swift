import Foundation
import LogStore

/// `/api/tasks`, `/api/tasks/{id}` and `/api/bodies/{key}`: network tasks, one task's details,
/// and a stored body's bytes.
struct TasksAPI: Sendable {
    let store: LogStore

    /// A page of tasks, most recent first. Filters: `host`, `method`, `label`, `session` (any
    /// of these, repeatable), `status` (`500` or `400-599`), `failed` (`true`: errors and status
    /// ≥ 400), `q` (words of the URL), `since`, `until`; `limit` up to 1,000, `cursor`.
    func page(_ parameters: QueryParameters) async throws(ConsoleRequestError) -> HTTPResponse {
        var query = TaskQuery()
        query.hosts = parameters.values("host")
        query.methods = parameters.values("method").map { $0.uppercased() }
        query.labels = parameters.values("label")
        query.sessions = try parameters.values("session").map { text throws(ConsoleRequestError) in
            try MessageFilters.uuid(text, "session")
        }
        query.since = try parameters.value("since").map { text throws(ConsoleRequestError) in try MessageFilters.date(text, "since") }
        query.until = try parameters.value("until").map { text throws(ConsoleRequestError) in try MessageFilters.date(text, "until") }
        if let status = parameters.value("status") { query.statusCodes = try Self.statusRange(status) }
        switch parameters.value("failed") {
        case nil: break
        case "true": query.isFailure = true
        case "false": query.isFailure = false
        case let other?: throw .badRequest("failed is true or false, not \(other)")
        }
        if let text = parameters.value("q") { query.urlText = TextSearch(text) }
        query.limit = try MessageFilters.integer(parameters, "limit", in: 1...1_000, default: 100)
        if let text = parameters.value("cursor") {
            guard let cursor = TaskQuery.Cursor(text) else { throw .badRequest("\(text) is not a task cursor") }
            query.cursor = cursor
        }
        let page = try await ask { try await store.tasks(query) }
        return JSONBody.response(Page(tasks: page.tasks, next: page.nextCursor?.description))
    }

    /// Everything stored about one task, with the phases of its timeline (``ConsoleTask``).
    func task(id text: String) async throws(ConsoleRequestError) -> HTTPResponse {
        let id = try MessageFilters.uuid(text, "a task's id")
        guard let details = try await ask({ try await store.task(id: id) }) else { throw .notFound("no task has id \(id)") }
        return JSONBody.response(ConsoleTask(details))
    }

    /// A stored body, always as `application/octet-stream` and an attachment, whatever it
    /// claims to be: its bytes came from outside, and served as HTML on the console's origin
    /// they could run script there. The page shows images from these bytes through a `blob:`
    /// URL of an image type it picked from the task's headers.
    func body(key: String) async throws(ConsoleRequestError) -> HTTPResponse {
        guard key.utf8.count == 40, key.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw .badRequest("a body's key is 40 lowercase hex digits")
        }
        guard let data = try await ask({ try await store.blobData(forKey: key) }) else {
            throw .notFound("no stored body has key \(key)")
        }
        return ResponseHeaders.response(
            contentType: "application/octet-stream", Array(data),
            extra: [("Content-Disposition", "attachment; filename=\"\(key).bin\""), ("Content-Security-Policy", "sandbox")])
    }

    /// `500` or `400-599`.
    static func statusRange(_ text: String) throws(ConsoleRequestError) -> ClosedRange<Int> {
        let parts = text.split(separator: "-", maxSplits: 1).map { Int($0) }
        switch (parts.first ?? nil, parts.count == 2 ? parts[1] : parts.first ?? nil) {
        case (let low?, let high?) where (100...999).contains(low) && (low...999).contains(high): return low...high
        default: throw .badRequest("status is a code (500) or a range (400-599), not \(text)")
        }
    }

    /// A page as the API sends it.
    struct Page: Encodable {
        var tasks: [NetworkTaskSummary]
        var next: String?
    }
}
