import Foundation
import LogStore
import Synchronization

/// `/api/tail`: the live tail as Server-Sent Events, each matching message as it is committed
/// (by this process or another writing the store), in order.
///
/// Every event carries the message's cursor as its `id`, so a browser's `EventSource` that
/// reconnects sends it back as `Last-Event-ID` and the tail resumes right after it, none missed
/// or repeated (`after=` does the same by hand). When the sweep removed messages before the tail
/// read them, a `gap` event says which ids were skipped, before the next message. A comment line
/// every 15 s keeps proxies from closing an idle stream and finds a client that went away.
struct TailEvents: Sendable {
    let store: LogStore
    /// Between keep-alive comments.
    var heartbeat: Duration = .seconds(15)

    /// The stream for `request`: its filters, and where to start (`Last-Event-ID`, `after`, or
    /// the newest `last` messages, default 0).
    func stream(_ request: HTTPRequest, _ parameters: QueryParameters) throws(ConsoleRequestError) -> HTTPResponse {
        var filters = try MessageFilters.query(parameters)
        filters.order = .oldestFirst
        let query = filters
        let start = try Self.start(request, parameters)
        let store = store
        let heartbeat = heartbeat
        let headers = ResponseHeaders.common + [("Content-Type", "text/event-stream; charset=utf-8")]
        return HTTPResponse(status: 200, headers: headers, body: .stream(length: nil) { writer in
            let gaps = Gaps()
            let tail = try await store.tail(query, from: start) { gaps.append($0) }
            // A reconnecting EventSource waits this long (ms) before it tries again.
            try await writer.write(Array("retry: 1000\n\n".utf8))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await message in tail {
                        for gap in gaps.take() {
                            let data = try JSONBody.line(["from": gap.skippedIDs.lowerBound, "to": gap.skippedIDs.upperBound])
                            try await writer.write(Array("event: gap\ndata: \(data)\n\n".utf8))
                        }
                        try await writer.write(Self.event(ConsoleMessage(message)))
                    }
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: heartbeat)
                        try await writer.write(Array(": keep-alive\n\n".utf8))
                    }
                }
                // Either ends the stream: the tail when the store closes, the heartbeat when the
                // client is gone (its write throws); the other is cancelled.
                try await group.next()
                group.cancelAll()
            }
        })
    }

    /// A message's event: its cursor as the id, its JSON (one line: ``JSONText`` escapes line
    /// breaks) as the data.
    static func event(_ message: ConsoleMessage) -> [UInt8] {
        var json = JSONText()
        json.message(message)
        return Array("id: \(message.cursor)\ndata: ".utf8) + json.bytes + Array("\n\n".utf8)
    }

    private static func start(_ request: HTTPRequest, _ parameters: QueryParameters) throws(ConsoleRequestError) -> TailStart {
        if let text = request.header("Last-Event-ID") ?? parameters.value("after") {
            guard let cursor = MessageQuery.Cursor(text), cursor.rankOffset == nil else {
                throw .badRequest("\(text) is not a message cursor")
            }
            return .after(cursor)
        }
        return .last(try MessageFilters.integer(parameters, "last", in: 0...1_000, default: 0))
    }
}

/// Gaps the tail reported, from its handler to the stream's loop.
private final class Gaps: Sendable {
    private let gaps = Mutex<[TailGap]>([])

    func append(_ gap: TailGap) { gaps.withLock { $0.append(gap) } }

    func take() -> [TailGap] {
        gaps.withLock { gaps in
            defer { gaps = [] }
            return gaps
        }
    }
}
