import Foundation
import Testing

@testable import LogStore

/// A `NetworkLogger` task's request head is stored once, at its creation: the completion that
/// carries the same request keeps that head row, one whose request changed replaces it.
@Suite("NetworkLogger request heads")
struct NetworkLoggerHeadTests {
    static let url = URL(string: "https://api.example.com/v1/orders?page=2")!
    static let request = NetworkRequest(
        url: url, method: "POST", headers: ["Accept": "application/json", "Authorization": "Bearer secret"],
        body: Data(#"{"id":1}"#.utf8))
    static let response = NetworkResponse(url: url, statusCode: 201, headers: ["Content-Type": "application/json"])

    /// Every insert, link count change and delete of a `task_heads` row, recorded by triggers
    /// that another tool (the `sqlite3` shell) adds to the store: they see the writer's statements.
    static let auditSQL = """
        CREATE TABLE head_audit (op TEXT, head_id INTEGER, link_count INTEGER);
        CREATE TRIGGER head_audit_insert AFTER INSERT ON task_heads
            BEGIN INSERT INTO head_audit VALUES ('insert', new.id, new.link_count); END;
        CREATE TRIGGER head_audit_update AFTER UPDATE OF link_count ON task_heads
            BEGIN INSERT INTO head_audit VALUES ('update', new.id, new.link_count); END;
        CREATE TRIGGER head_audit_delete AFTER DELETE ON task_heads
            BEGIN INSERT INTO head_audit VALUES ('delete', old.id, old.link_count); END;
        """

    /// Runs `body` on a store whose head rows are audited.
    static func withAuditedStore(
        configuration: LogStore.Configuration = LogStore.Configuration(), _ body: (LogStore) async throws -> Void
    ) async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { _ in }
            try SQLiteShell.run(url.appendingPathComponent("logs.sqlite"), auditSQL)
            try await withStore(at: url, configuration: configuration, body)
        }
    }

    static func audit(_ store: LogStore) async throws -> [String] {
        try await store.read { db in
            try db.rows("SELECT op, head_id, link_count FROM head_audit ORDER BY rowid").map { row in
                row.values.map { $0.text ?? $0.integer.map(String.init) ?? "null" }.joined(separator: " ")
            }
        }
    }

    /// The stored request head of the task, and the `task_heads` row it links with its link count.
    static func requestHead(_ store: LogStore, _ taskID: UUID) async throws -> (head: NetworkRequest?, row: [Int64?]) {
        let details = try #require(try await store.task(id: taskID))
        let row = try await store.read { db in
            try db.rows("""
                SELECT task_heads.id, task_heads.link_count FROM tasks
                JOIN task_heads ON task_heads.id = tasks.request_head_id WHERE tasks.uuid = ?
                """, [.text(taskID.uuidString)]).first?.values.map(\.integer) ?? []
        }
        return (details.request, row)
    }

    /// In one batch (the writer held while both are logged) and in two (a flush between).
    @Test(.enabled(if: SQLiteShell.isAvailable, "needs /usr/bin/sqlite3"), arguments: [true, false])
    func completionWithItsCreationsRequestKeepsThatHead(inOneBatch: Bool) async throws {
        let held = HeldWriter()
        var configuration = LogStore.Configuration()
        if inOneBatch { held.hold(&configuration) }
        try await Self.withAuditedStore(configuration: configuration) { store in
            let logger = NetworkLogger(store: store, label: "orders")
            let id = UUID()
            if inOneBatch {
                store.storeMessage(label: "app", level: .info, message: "holds the writer")
                try await held.waitUntilHeld()
            }
            logger.logTaskCreated(taskID: id, request: Self.request)
            let flushesBetween = !inOneBatch
            if flushesBetween { try await store.flush() }
            let created = flushesBetween ? try await Self.requestHead(store, id).row : []
            logger.logTaskCompleted(taskID: id, response: Self.response, error: nil, responseBody: Data("{}".utf8))
            held.release()
            try await store.flush()

            let (head, row) = try await Self.requestHead(store, id)
            if flushesBetween { #expect(row == created) }
            #expect(row.last == 1)
            // Redacted as before, and the same head a query showed before.
            #expect(head?.url == Self.url)
            #expect(head?.method == "POST")
            #expect(head?.headers["Accept"] == "application/json")
            #expect(head?.headers["Authorization"] != "Bearer secret")
            #expect(head?.headers["Authorization"] != nil)
            // The request head inserted once, the response head once; nothing linked again or released.
            let audit = try await Self.audit(store)
            #expect(audit.count == 2, "\(audit)")
            #expect(audit.allSatisfy { $0.hasPrefix("insert ") }, "\(audit)")
            let task = try #require(try await store.tasks(TaskQuery()).tasks.first)
            #expect(task.state == .success)
            #expect(task.statusCode == 201)
        }
    }

    @Test(.enabled(if: SQLiteShell.isAvailable, "needs /usr/bin/sqlite3"))
    func completionWhoseRequestChangedReplacesTheHead() async throws {
        // The hook adds a header to the completions of the chosen tasks, after the creation stored its head.
        let changed: Set<UUID> = [UUID(), UUID()]
        let kept = UUID()
        var configuration = LogStore.Configuration()
        configuration.willHandleEvent = { event in
            guard case .networkTaskCompleted(var completed) = event, changed.contains(completed.taskID) else {
                return event
            }
            completed.request.headers["X-Retry"] = "1"
            return .networkTaskCompleted(completed)
        }
        let alone = try #require(changed.first)
        let sharing = try #require(changed.dropFirst().first)
        let other = NetworkRequest(url: URL(string: "https://api.example.com/v1/other")!, method: "GET")
        try await Self.withAuditedStore(configuration: configuration) { store in
            let logger = NetworkLogger(store: store)
            logger.logTaskCreated(taskID: alone, request: other)
            logger.logTaskCreated(taskID: sharing, request: Self.request)
            logger.logTaskCreated(taskID: kept, request: Self.request)
            try await store.flush()
            let otherRow = try #require(try await Self.requestHead(store, alone).row.first ?? nil)
            let sharedRow = try await Self.requestHead(store, sharing).row
            #expect(sharedRow.last == 2)

            for id in [alone, sharing, kept] {
                logger.logTaskCompleted(taskID: id, response: Self.response, error: nil)
            }
            try await store.flush()

            // Each changed task links a new head with the header; the unchanged one keeps the shared head.
            let (aloneHead, aloneRow) = try await Self.requestHead(store, alone)
            #expect(aloneHead?.headers["X-Retry"] == "1")
            #expect(aloneHead?.url == other.url)
            #expect(aloneRow.first != otherRow)
            let (sharingHead, sharingRow) = try await Self.requestHead(store, sharing)
            #expect(sharingHead?.headers["X-Retry"] == "1")
            #expect(sharingRow.first != sharedRow.first)
            let (keptHead, keptRow) = try await Self.requestHead(store, kept)
            #expect(keptHead?.headers["X-Retry"] == nil)
            #expect(keptHead?.headers["Accept"] == "application/json")
            #expect(keptRow == [sharedRow.first ?? nil, 1])
            // The head no other task used is gone; the shared one lost one link.
            let audit = try await Self.audit(store)
            #expect(audit.contains("delete \(otherRow) 0"), "\(audit)")
            #expect(try await store.read { db in
                try db.rows("SELECT count(*) FROM task_heads WHERE id = ?", [.integer(otherRow)])[0].values[0].integer
            } == 0)
        }
    }

    @Test func completionOfARemovedPendingTaskStoresItsHeadAgain() async throws {
        try await withTemporaryStore { store, _ in
            let logger = NetworkLogger(store: store)
            let id = UUID()
            logger.logTaskCreated(taskID: id, request: Self.request)
            try await store.flush()
            try await store.removeAll()
            logger.logTaskCompleted(taskID: id, response: Self.response, error: nil)
            try await store.flush()

            let (head, row) = try await Self.requestHead(store, id)
            #expect(head?.headers["Accept"] == "application/json")
            #expect(row.last == 1)
            #expect(try await store.read { db in try db.rows("PRAGMA foreign_key_check") }.isEmpty)
        }
    }

    @Test func completionAfterTheStoreReopenedReplacesTheCreationsHead() async throws {
        try await withTemporaryStoreURL { url in
            let id = UUID()
            try await withStore(at: url) { store in
                NetworkLogger(store: store).logTaskCreated(taskID: id, request: Self.request)
            }
            try await withStore(at: url) { store in
                // A new logger never saw the creation: the completion brings its request along.
                var request = Self.request
                request.headers["X-Retry"] = "1"
                NetworkLogger(store: store).logTaskCompleted(
                    taskID: id, response: Self.response, error: nil, request: request)
                try await store.flush()

                let (head, row) = try await Self.requestHead(store, id)
                #expect(head?.headers["X-Retry"] == "1")
                #expect(row.last == 1)
                // The creation's head had no other task: it was released and deleted.
                let heads = try await store.read { db in
                    try db.rows("SELECT count(*), sum(link_count) FROM task_heads")[0].values.map(\.integer)
                }
                #expect(heads == [2, 2])
                let task = try #require(try await store.tasks(TaskQuery()).tasks.first)
                #expect(task.state == .success)
            }
        }
    }

    /// The comparison that lets a completion keep its creation's head says "same" only when the
    /// two heads' JSON is the same bytes: canonically equivalent spellings and `-0.0` differ.
    @Test func theHeadComparisonAgreesWithTheEncodedBytes() {
        let precomposed = "caf\u{E9}", decomposed = "cafe\u{301}"
        let base = NetworkRequest(url: Self.url, method: "POST", headers: [precomposed: precomposed], timeout: 0)
        var variants = [base]
        for change in 0..<6 {
            var request = base
            switch change {
            case 0: request.headers = [precomposed: decomposed]
            case 1: request.headers = [decomposed: precomposed]
            case 2: request.timeout = -0.0
            case 3: request.method = "post"
            case 4: request.url = URL(string: "https://api.example.com/v1/orders?page=3")
            default: request.cachePolicy = "reloadIgnoringLocalCacheData"
            }
            variants.append(request)
        }
        for first in variants {
            for second in variants {
                let sameBytes = Array(HeadJSON.encode(first).utf8) == Array(HeadJSON.encode(second).utf8)
                #expect(HeadJSON.isSameHead(first, second) == sameBytes)
            }
        }
        #expect(HeadJSON.isSameHead(base, base))
    }
}
