import Foundation
import LogStore
import Testing

/// The small fixed store the export tests compare against their goldens: known times, levels,
/// labels, metadata, source locations, two network tasks with fixed ids, and one message of
/// hostile text.
enum ExportFixture {
    /// 2025-06-15T15:06:40.000Z.
    static let start = Date(timeIntervalSince1970: 1_750_000_000)
    static let okTaskID = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
    static let failedTaskID = UUID(uuidString: "00000000-0000-4000-8000-000000000002")!
    /// A newline, an ANSI colour, a NUL, a quote, a backslash, a line separator, a right-to-left
    /// override and something that looks like the end of a JSON string.
    static let hostile = "line one\nline two\u{1B}[31mred\u{0}nul \"quoted\" back\\slash \u{2028}sep \u{202E}rtl\"},{\"x\":1"

    static func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    /// Fills `store` (one session) and flushes it.
    static func fill(_ store: LogStore) async throws {
        store.storeMessage(
            createdAt: at(0.125), label: "app", level: .info, message: "server started",
            metadata: ["port": "8080", "env": "prod"], file: "Sources/App/Server.swift", function: "start()", line: 10)
        store.storeMessage(
            createdAt: at(1), label: "http", level: .warning, message: "slow response",
            metadata: ["request": ["id": "r-1", "path": "/orders"], "tags": ["a", "b c"]],
            file: "Sources/App/Routes.swift", function: "orders()", line: 88)
        store.storeMessage(
            createdAt: at(1.5), label: "http", level: .error, message: hostile,
            metadata: ["evil": "a=b \"c\"\n", "empty": ""], file: "Sources/App/Routes.swift", function: "orders()",
            line: 90)
        store.storeMessage(
            createdAt: at(3.999), label: "db", level: .debug, message: "query took 3 ms", file: "Sources/App/DB.swift",
            function: "query()", line: 7)

        let logger = NetworkLogger(store: store)
        logger.logTaskCreated(
            taskID: okTaskID,
            request: NetworkRequest(
                url: URL(string: "https://api.example.com/users?page=2"), method: "GET",
                headers: ["Accept": "application/json", "X-Trace": "t-1"]),
            createdAt: at(2))
        logger.logTaskCompleted(
            taskID: okTaskID,
            response: NetworkResponse(
                url: URL(string: "https://api.example.com/users?page=2"), statusCode: 200,
                headers: ["Content-Type": "application/json"]),
            error: nil, responseBody: Data(#"{"users":[]}"#.utf8), completedAt: at(2.25))
        logger.logTaskCreated(
            taskID: failedTaskID,
            request: NetworkRequest(
                url: URL(string: "https://api.example.com/orders"), method: "POST",
                headers: ["Content-Type": "application/json"], body: Data(#"{"id":1}"#.utf8)),
            createdAt: at(3))
        logger.logTaskCompleted(
            taskID: failedTaskID, response: nil,
            error: NSError(domain: "TestDomain", code: 7, userInfo: [NSLocalizedDescriptionKey: "connection reset"]),
            completedAt: at(4.5))
        try await store.flush()
    }

    /// A store filled with ``fill(_:)`` at `url`'s directory, handed to `body` with a directory for
    /// exports.
    static func withStore<T>(_ body: (LogStore, URL) async throws -> T) async throws -> T {
        try await withTemporaryStore { store, url in
            try await fill(store)
            let exports = url.deletingLastPathComponent().appendingPathComponent("exports", isDirectory: true)
            try FileManager.default.createDirectory(at: exports, withIntermediateDirectories: true)
            return try await body(store, exports)
        }
    }

    /// Exports to a new file in `directory` and returns its text.
    static func export(
        _ store: LogStore, _ format: ExportFormat, options: ExportOptions = ExportOptions(), in directory: URL,
        name: String = UUID().uuidString
    ) async throws -> String {
        let url = directory.appendingPathComponent("\(name).\(format.fileExtension)")
        _ = try await store.export(to: url, format: format, options: options)
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// The output with what changes from run to run replaced: session ids by `SESSION`, a session
    /// header's start, process and host by nothing, thread ids and names by placeholders.
    static func normalised(_ text: String, sessions: [UUID]) -> String {
        var text = text
        for (index, session) in sessions.enumerated() {
            text = text.replacingOccurrences(of: session.uuidString, with: "SESSION\(index + 1)")
        }
        text = text.replacing(#/(# session SESSION\d) started [^\n]*/#) { $0.output.1 }
        text = text.replacing(#/"threadID":\d+/#, with: "\"threadID\":0")
        text = text.replacing(#/"threadName":("([^"\\]|\\.)*"|null)/#, with: "\"threadName\":\"T\"")
        return text
    }
}
