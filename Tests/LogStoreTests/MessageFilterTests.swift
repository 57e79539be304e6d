import Foundation
@testable import LogStore
import Testing

/// `MessageQuery`'s row filters (files, functions, threads, excluded labels, a task, metadata),
/// alone and combined with each other and with text search, checked against a model of what
/// was logged, with the index caught up and with it off.
@Suite("Message filters")
struct MessageFilterTests {
    struct Logged {
        var id: Int
        var text: String
        var label: String
        var level: LogStore.Level
        var file: String
        var function: String
        var metadata: LogStore.Metadata
    }

    static let files = ["Server.swift", "Database.swift", "Cache.swift"]
    static let functions = ["handle(_:)", "query(_:)", "evict()"]
    static let labels = ["http", "db", "cache", "auth"]

    /// Logs `count` messages whose fields cycle at different rates, so combinations occur.
    static func log(_ count: Int, into store: LogStore) -> [Logged] {
        (0..<count).map { i in
            var metadata: LogStore.Metadata = ["user": .string("u\(i % 5)")]
            if i % 3 == 0 { metadata["http"] = .dictionary(["status": .string(i % 2 == 0 ? "500" : "200")]) }
            if i % 7 == 0 { metadata["tags"] = .array([.string("slow"), .string("retry")]) }
            if i % 11 == 0 { metadata["note"] = .string("line one\nline two") }
            let logged = Logged(
                id: i, text: "event \(i) \(i % 4 == 0 ? "timeout" : "ok")", label: labels[i % labels.count],
                level: LogStore.Level.allCases[i % LogStore.Level.allCases.count], file: files[i % files.count],
                function: functions[(i / 2) % functions.count], metadata: metadata)
            store.storeMessage(
                label: logged.label, level: logged.level, message: logged.text, metadata: logged.metadata,
                file: "/src/App/" + logged.file, function: logged.function, line: UInt(i))
            return logged
        }
    }

    /// Every page of `query`, newest first, read through the public API.
    static func all(_ store: LogStore, _ query: MessageQuery) async throws -> [String] {
        var query = query
        query.limit = 13
        var texts: [String] = []
        repeat {
            let page = try await store.messages(query)
            texts += page.messages.map(\.text)
            query.cursor = page.nextCursor
        } while query.cursor != nil && texts.count < 10_000
        return texts
    }

    static func check(
        _ store: LogStore, _ logged: [Logged], _ query: MessageQuery, _ predicate: (Logged) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let expected = logged.filter(predicate).reversed().map(\.text)
        #expect(!expected.isEmpty, sourceLocation: sourceLocation)
        #expect(try await all(store, query) == expected, sourceLocation: sourceLocation)
        #expect(try await store.count(query) == expected.count, sourceLocation: sourceLocation)
    }

    static func withLogged(indexed: Bool, _ body: (LogStore, [Logged]) async throws -> Void) async throws {
        var configuration = LogStore.Configuration()
        configuration.isSearchIndexEnabled = indexed
        try await withTemporaryStore(configuration: configuration) { store, _ in
            let logged = log(200, into: store)
            try await store.flush()
            if indexed {
                try await withinTimeLimit(seconds: 30) {
                    while try await store.info().unindexedMessageCount > 0 { try await Task.sleep(for: .milliseconds(5)) }
                }
            }
            try await body(store, logged)
        }
    }

    @Test(arguments: [true, false])
    func eachFilterAlone(indexed: Bool) async throws {
        try await Self.withLogged(indexed: indexed) { store, logged in
            try await Self.check(store, logged, MessageQuery(files: ["Cache.swift"])) { $0.file == "Cache.swift" }
            try await Self.check(store, logged, MessageQuery(files: ["Cache.swift", "Server.swift"])) { $0.file != "Database.swift" }
            try await Self.check(store, logged, MessageQuery(functions: ["evict()"])) { $0.function == "evict()" }
            try await Self.check(store, logged, MessageQuery(excludedLabels: ["http", "db"])) { !["http", "db"].contains($0.label) }
            try await Self.check(store, logged, MessageQuery(metadata: [.equals("user", "u3")])) { $0.metadata["user"] == .string("u3") }
            try await Self.check(store, logged, MessageQuery(metadata: [.equals(["http", "status"], "500")])) {
                $0.metadata["http"] == .dictionary(["status": .string("500")])
            }
            try await Self.check(store, logged, MessageQuery(metadata: [.exists("http")])) { $0.metadata["http"] != nil }
            try await Self.check(store, logged, MessageQuery(metadata: [.exists("tags")])) { $0.metadata["tags"] != nil }
            // A value with a newline: JSON escapes it, so the index cannot narrow it; still exact.
            try await Self.check(store, logged, MessageQuery(metadata: [.equals("note", "line one\nline two")])) {
                $0.metadata["note"] != nil
            }
            try await Self.check(store, logged, MessageQuery(text: .plain("timeout"))) { $0.text.hasSuffix("timeout") }
            // Nothing matches: no rows, no error.
            #expect(try await store.messages(MessageQuery(metadata: [.equals("user", "nobody")])).messages.isEmpty)
            #expect(try await store.messages(MessageQuery(metadata: [.equals("tags", "slow")])).messages.isEmpty)
            #expect(try await store.messages(MessageQuery(files: ["Missing.swift"])).messages.isEmpty)
            #expect(try await store.messages(MessageQuery(excludedLabels: Self.labels)).messages.isEmpty)
        }
    }

    @Test(arguments: [true, false])
    func filtersCombine(indexed: Bool) async throws {
        try await Self.withLogged(indexed: indexed) { store, logged in
            try await Self.check(
                store, logged,
                MessageQuery(levels: .notice ... .critical, labels: ["http", "db"], text: .plain("timeout"), metadata: [.exists("http")])
            ) { $0.level >= .notice && ["http", "db"].contains($0.label) && $0.text.hasSuffix("timeout") && $0.metadata["http"] != nil }
            try await Self.check(
                store, logged,
                MessageQuery(excludedLabels: ["auth"], metadata: [.equals("user", "u0"), .exists("http")], files: ["Server.swift", "Cache.swift"])
            ) { $0.label != "auth" && $0.metadata["user"] == .string("u0") && $0.metadata["http"] != nil && $0.file != "Database.swift" }
            try await Self.check(
                store, logged, MessageQuery(text: .fts5("event NOT timeout"), functions: ["query(_:)"])
            ) { !$0.text.hasSuffix("timeout") && $0.function == "query(_:)" }
        }
    }

    @Test func threadsAndTasks() async throws {
        try await withTemporaryStore { store, _ in
            store.storeMessage(label: "app", level: .info, message: "from the test's thread")
            try await onOwnThread { store.storeMessage(label: "app", level: .info, message: "from another thread") }
            let url = try #require(URL(string: "https://api.example.com/v1/items"))
            store.storeRequest(
                NetworkRequest(url: url, method: "GET"), response: NetworkResponse(url: url, statusCode: 200), error: nil,
                data: nil)
            try await store.flush()
            let all = try await store.messages(MessageQuery(order: .oldestFirst)).messages
            let threadID = try #require(all.first?.threadID)
            let byThread = try await store.messages(MessageQuery(threadIDs: [threadID]))
            #expect(byThread.messages.map(\.text) == ["from the test's thread"])

            let task = try #require(try await store.tasks(TaskQuery()).tasks.first)
            let ofTask = try await store.messages(MessageQuery(taskID: task.id))
            #expect(ofTask.messages.count == 1)
            #expect(ofTask.messages.first?.label == "network")
            #expect(try await store.count(MessageQuery(taskID: task.id)) == 1)
            #expect(try await store.messages(MessageQuery(taskID: UUID())).messages.isEmpty)
        }
    }

    /// A number another tool wrote matches its text; `equals` never matches a dictionary.
    @Test func metadataNumbersWrittenByOtherToolsMatchTheirText() async throws {
        try await withTemporaryStore { store, url in
            store.storeMessage(label: "app", level: .info, message: "nested", metadata: ["code": .dictionary(["x": "1"])])
            try await store.flush()
            let connection = try Connection(path: StoreFiles.databaseURL(in: url).path, mode: .readWrite(create: false))
            // The store's writer may hold the write lock (an index step): wait for it, as any tool would.
            try connection.setBusyTimeout()
            // A logged message is never changed (the full-text index relies on it): the tool adds rows.
            try connection.execute("""
                INSERT INTO messages (created_at, session_id, level, label_id, text, metadata)
                SELECT created_at, session_id, level, label_id, 'tool row', '{"code":404}' FROM messages WHERE text = 'nested';
                INSERT INTO messages (created_at, session_id, level, label_id, text, metadata)
                SELECT created_at, session_id, level, label_id, 'broken', 'not json {' FROM messages WHERE text = 'nested';
                """)
            connection.close()
            #expect(try await store.messages(MessageQuery(metadata: [.equals("code", "404")])).messages.map(\.text) == ["tool row"])
            #expect(try await store.messages(MessageQuery(metadata: [.exists("code")])).messages.count == 2)
            #expect(try await store.messages(MessageQuery(metadata: [.equals("code", "{\"x\":\"1\"}")])).messages.isEmpty)
            #expect(try await store.messages(MessageQuery(metadata: [.exists(["code", "x"])])).messages.map(\.text) == ["nested"])
        }
    }

    /// Values with no words (empty, punctuation) and keys SQLite's JSON paths cannot name.
    @Test(arguments: [true, false])
    func metadataValuesWithoutWordsAndUnnameableKeys(indexed: Bool) async throws {
        var configuration = LogStore.Configuration()
        configuration.isSearchIndexEnabled = indexed
        try await withTemporaryStore(configuration: configuration) { store, _ in
            for value in ["", "-", "…", "+++"] {
                store.storeMessage(label: "app", level: .info, message: "value [\(value)]", metadata: ["user": .string(value)])
            }
            store.storeMessage(label: "app", level: .info, message: "odd key", metadata: ["a\"b": "v", "a.b": "w"])
            try await store.flush()
            if indexed {
                try await withinTimeLimit(seconds: 30) {
                    while try await store.info().unindexedMessageCount > 0 { try await Task.sleep(for: .milliseconds(5)) }
                }
            }
            for value in ["", "-", "…", "+++"] {
                let query = MessageQuery(metadata: [.equals("user", value)])
                #expect(try await store.messages(query).messages.map(\.text) == ["value [\(value)]"], "\(value)")
                #expect(try await store.count(query) == 1)
            }
            #expect(try await store.messages(MessageQuery(metadata: [.equals("a.b", "w")])).messages.map(\.text) == ["odd key"])
            for filter in [MetadataFilter.equals("a\"b", "v"), .exists("a\\b"), .exists([String]())] {
                await #expect(throws: LogStoreError.invalidArgument(""), "\(filter)") {
                    try await store.messages(MessageQuery(metadata: [filter]))
                }
            }
        }
    }
}
