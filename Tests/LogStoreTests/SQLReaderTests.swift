import Foundation
import LogStore
import Testing

@Suite("SQL reader")
struct SQLReaderTests {
    /// The ways a store can be opened that route `read` differently: reader connections for a
    /// file store; the writer's own connection for in-memory and unsafe stores.
    static let writableOptions: [LogStore.Options] = [[.create], [.create, .inMemory], [.create, .unsafe]]

    @Test func readReturnsRowsOfTheMessageRowsView() async throws {
        let createdAt = Date(timeIntervalSince1970: 1_750_000_000.25)
        try await withTemporaryStore { store, _ in
            store.storeMessage(
                createdAt: createdAt, label: "db", level: .warning, message: "slow query",
                metadata: ["ms": "812"], file: "App/Database.swift", function: "query()", line: 77)
            store.storeMessage(label: "http", level: .info, message: "GET /")
            try await store.flush()

            let rows = try await store.read { db in
                try db.rows("SELECT id, time, level, label, text, metadata, file, function, line, thread_id, session FROM message_rows ORDER BY id")
            }
            try #require(rows.count == 2)
            let row = rows[0]
            #expect(row.columns == ["id", "time", "level", "label", "text", "metadata", "file", "function", "line",
                                    "thread_id", "session"])
            #expect(row["time"] == .text("2025-06-15T15:06:40.250Z"))
            #expect(row["level"] == .text("warning"))
            #expect(row["label"] == .text("db"))
            #expect(row["text"] == .text("slow query"))
            #expect(row["metadata"] == .text(#"{"ms":"812"}"#))
            #expect(row["file"] == .text("Database.swift"))
            #expect(row["function"] == .text("query()"))
            #expect(row["line"] == .integer(77))
            #expect((row["thread_id"]?.integer ?? 0) != 0)
            #expect(row["session"] == .text(store.session.id.uuidString))
            #expect(row["missing"] == nil)
            #expect(row[3] == .text("db"))
            #expect(rows[1]["metadata"] == .null)
            #expect(rows[1]["level"] == .text("info"))
            // The view's ids are the typed API's ids.
            let typed = try await allMessages(store)
            #expect(rows.map { $0["id"]?.integer } == typed.map(\.id))
        }
    }

    @Test(arguments: writableOptions)
    func argumentsAndScalars(_ options: LogStore.Options) async throws {
        try await withTemporaryStore(options: options) { store, _ in
            for i in 0..<10 { store.storeMessage(label: i < 3 ? "a" : "b", level: .info, message: "m\(i)") }
            try await store.flush()
            let (count, texts, none) = try await store.read { db in
                (try db.scalar("SELECT count(*) FROM message_rows WHERE label = ?", ["a"]),
                 try db.rows("SELECT text FROM message_rows WHERE label = ? AND text <> ? ORDER BY id", ["a", "m1"])
                     .map { $0["text"]?.text },
                 try db.scalar("SELECT text FROM message_rows WHERE label = ?", ["zzz"]))
            }
            #expect(count == .integer(3))
            #expect(texts == ["m0", "m2"])
            #expect(none == nil)
        }
    }

    @Test func badSQLThrowsDatabaseError() async throws {
        try await withTemporaryStore { store, _ throws in
            let syntax = await #expect(throws: LogStoreError.self) {
                try await store.read { db in try db.rows("SELEC nonsense") }
            }
            #expect(syntax?.kind == .database)
            #expect(syntax?.databaseError?.sql == "SELEC nonsense")
            let arguments = await #expect(throws: LogStoreError.self) {
                try await store.read { db in try db.rows("SELECT ?, ?", [1]) }
            }
            #expect(arguments != nil)
            // The connection is fine afterwards.
            #expect(try await store.read { db in try db.scalar("SELECT 1 + 1") } == .integer(2))
        }
    }

    @Test(arguments: writableOptions)
    func writesThroughReadThrowAndChangeNothing(_ options: LogStore.Options) async throws {
        try await withTemporaryStore(options: options) { store, _ in
            for i in 0..<5 { store.storeMessage(label: "keep", level: .info, message: "m\(i)") }
            try await store.flush()
            // The index's first partition is a table the writer makes in the background: the
            // schema compared below must be the one the writes meet.
            let indexed = ContinuousClock.now + .seconds(30)
            while try await store.info().unindexedMessageCount > 0, ContinuousClock.now < indexed {
                try await Task.sleep(for: .milliseconds(5))
            }
            let before = try await Self.snapshot(store)

            let writes = [
                "INSERT INTO labels (name) VALUES ('intruder')",
                "DELETE FROM messages",
                "UPDATE messages SET text = 'changed'",
                "DROP TABLE messages",
                "CREATE TABLE evil (x)",
                "PRAGMA user_version = 42",
            ]
            for sql in writes {
                let error = await #expect(throws: LogStoreError.self, "\(sql)") {
                    try await store.read { db in try db.rows(sql) }
                }
                #expect(error?.databaseError?.code == 8 /* SQLITE_READONLY */, "\(sql): \(String(describing: error))")
            }
            #expect(try await Self.snapshot(store) == before)

            // Turning SQLite's own guard off from inside the closure does not open a way in.
            _ = try? await store.read { db in try db.rows("PRAGMA query_only = OFF") }
            let error = await #expect(throws: LogStoreError.self) {
                try await store.read { db in
                    _ = try? db.rows("PRAGMA query_only = OFF")
                    return try db.rows("DELETE FROM messages")
                }
            }
            #expect(error != nil)
            #expect(try await Self.snapshot(store) == before)

            // The store itself still writes.
            store.storeMessage(label: "keep", level: .info, message: "after")
            try await store.flush()
            #expect(try await store.info().messageCount == 6)
        }
    }

    @Test(arguments: writableOptions)
    func aTransactionBegunInReadEndsWithIt(_ options: LogStore.Options) async throws {
        try await withTemporaryStore(options: options) { store, _ in
            store.storeMessage(label: "tx", level: .info, message: "first")
            try await store.flush()
            // `BEGIN` counts as a read-only statement; left open it would pin an old snapshot on
            // a reader connection, or hold the writer's own connection in a transaction.
            for _ in 0..<4 {
                _ = try await store.read { db in
                    _ = try db.rows("BEGIN")
                    return try db.rows("SELECT count(*) FROM messages")
                }
            }
            store.storeMessage(label: "tx", level: .info, message: "second")
            try await store.flush()
            for _ in 0..<4 {
                // Every reader of the pool sees the new commit.
                #expect(try await store.read { db in try db.scalar("SELECT count(*) FROM messages") } == .integer(2))
            }
            #expect(try await allMessages(store).map(\.text) == ["first", "second"])
        }
    }

    @Test func readWorksOnAReadOnlyStore() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                store.storeMessage(label: "ro", level: .error, message: "visible")
            }
            try await withStore(at: url, options: [.readonly]) { store in
                let rows = try await store.read { db in try db.rows("SELECT label, text FROM message_rows") }
                #expect(rows.map(\.values) == [[.text("ro"), .text("visible")]])
                let error = await #expect(throws: LogStoreError.self) {
                    try await store.read { db in try db.rows("DELETE FROM messages") }
                }
                #expect(error?.databaseError?.code == 8)
            }
        }
    }

    /// Everything a write could have changed: row counts, the schema and the user version.
    static func snapshot(_ store: LogStore) async throws -> [DatabaseValue] {
        try await store.read { db in
            [
                try db.scalar("SELECT count(*) FROM messages"),
                try db.scalar("SELECT count(*) FROM labels"),
                try db.scalar("SELECT group_concat(text, '|') FROM (SELECT text FROM messages ORDER BY id)"),
                try db.scalar("SELECT group_concat(name, '|') FROM (SELECT name FROM sqlite_schema ORDER BY name)"),
                try db.scalar("PRAGMA user_version"),
            ].map { $0 ?? .null }
        }
    }
}
