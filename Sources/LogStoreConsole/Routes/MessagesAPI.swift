import Foundation
import LogStore

/// `/api/messages`, `/api/messages/{id}`, `/api/context` and `/api/summary`: pages of messages,
/// one message (a permalink), the messages around one, and counts by level over time.
struct MessagesAPI: Sendable {
    let store: LogStore

    /// Pages most recent first, or oldest first (`order=oldest`), or by relevance to `q`
    /// (`order=relevance`); `limit` up to 1,000; `cursor` (the `next` of the page before).
    func page(_ parameters: QueryParameters) async throws(ConsoleRequestError) -> HTTPResponse {
        var query = try MessageFilters.query(parameters)
        query.limit = try MessageFilters.integer(parameters, "limit", in: 1...1_000, default: 100)
        switch parameters.value("order") {
        case nil, "newest": query.order = .newestFirst
        case "oldest": query.order = .oldestFirst
        case "relevance": query.order = .relevance
        case let other?: throw .badRequest("order is newest, oldest or relevance, not \(other)")
        }
        if let text = parameters.value("cursor") {
            guard let cursor = MessageQuery.Cursor(text) else { throw .badRequest("\(text) is not a cursor of this API") }
            query.cursor = cursor
        }
        let page = try await ask { try await store.messages(query) }
        return Self.response(page.messages.map { ConsoleMessage($0, matches: page.matches[$0.id]) }, next: page.nextCursor?.description)
    }

    /// A page as JSON, `{"messages":[…],"next":"…"}` (``Page``'s keys), written by ``JSONText``.
    static func response(_ messages: [ConsoleMessage], next: String?) -> HTTPResponse {
        var json = JSONText(capacity: 256 * messages.count + 64)
        json.raw("{\"messages\":[")
        for (index, message) in messages.enumerated() {
            if index > 0 { json.raw(",") }
            json.message(message)
        }
        json.raw("]")
        if let next { json.raw(",\"next\":"); json.string(next) }
        json.raw("}")
        return ResponseHeaders.response(contentType: JSONBody.contentType, json.bytes)
    }

    /// One message by id.
    func message(id: Int64) async throws(ConsoleRequestError) -> HTTPResponse {
        let query = MessageQuery(order: .newestFirst, limit: 1, cursor: MessageQuery.Cursor(lastID: id + 1), includesTaskMessages: true)
        let page = try await ask { try await store.messages(query) }
        guard let message = page.messages.first, message.id == id else { throw .notFound("no message has id \(id)") }
        var json = JSONText()
        json.message(ConsoleMessage(message))
        return ResponseHeaders.response(contentType: JSONBody.contentType, json.bytes)
    }

    /// The `count` messages before `id` and the `count` after it (every level and label: what
    /// happened around it), with the message itself.
    func context(_ parameters: QueryParameters) async throws(ConsoleRequestError) -> HTTPResponse {
        guard let text = parameters.value("id"), let id = Int64(text), id > 0 else {
            throw .badRequest("context needs the id of a message (id=…)")
        }
        let count = try MessageFilters.integer(parameters, "count", in: 1...500, default: 20)
        let before = MessageQuery(order: .newestFirst, limit: count + 1, cursor: MessageQuery.Cursor(lastID: id + 1), includesTaskMessages: true)
        let after = MessageQuery(order: .oldestFirst, limit: count, cursor: MessageQuery.Cursor(lastID: id), includesTaskMessages: true)
        let (older, newer) = try await ask { (try await store.messages(before), try await store.messages(after)) }
        guard older.messages.first?.id == id else { throw .notFound("no message has id \(id)") }
        return Self.response((older.messages.reversed() + newer.messages).map { ConsoleMessage($0) }, next: nil)
    }

    /// Totals by level and label, and a histogram of `buckets` (default 60) over the filters'
    /// window (or the matches' span).
    func summary(_ parameters: QueryParameters) async throws(ConsoleRequestError) -> HTTPResponse {
        let query = try MessageFilters.query(parameters)
        let buckets = try MessageFilters.integer(parameters, "buckets", in: 1...500, default: 60)
        return JSONBody.response(try await ask { try await store.summary(query, buckets: buckets) })
    }
}

/// Runs a store call, its errors as the API reports them: what the store refused as an argument
/// (a search it cannot parse) is the request's fault, anything else the store's.
func ask<T: Sendable>(_ body: () async throws -> T) async throws(ConsoleRequestError) -> T {
    do {
        return try await body()
    } catch let error as ConsoleRequestError {
        throw error
    } catch let error as LogStoreError {
        if error.kind == .invalidArgument { throw .badRequest(error.reason ?? error.description) }
        throw .failed(String(describing: error))
    } catch {
        throw .failed(String(describing: error))
    }
}
