import Foundation
import LogStore
import Testing

/// On delete, the history row of each (transaction, entity) keeps the preserved fields of the
/// rows that went (`history.tombstones`, JSON of `[HistoryTombstone]` in id order), per
/// ``HistoryConfiguration/tombstones``; blobs' inserts and deletes are recorded too.
@Suite("History tombstones")
struct HistoryTombstoneTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let url = URL(string: "https://api.example.com/items?id=\"7\"")!

    /// A store with history on (the default tombstones unless given) and an age limit of a day
    /// on a clock stopped at `now`.
    static func configuration(tombstones: [HistoryEntity: [String]] = HistoryConfiguration.defaultTombstones) -> LogStore.Configuration {
        var configuration = LogStore.Configuration()
        configuration.overflowPolicy = .waitForSpace
        configuration.maxAge = .seconds(86_400)
        configuration.timeSource = LogStore.TimeSource(now: { now }, sleep: { try await Task.sleep(for: $0) })
        configuration.history = HistoryConfiguration(currentAuthor: "server", tombstones: tombstones)
        return configuration
    }

    struct Deletion {
        var entity: Int64
        var rowCount: Int64
        var tombstones: [HistoryTombstone]?
    }

    /// Every delete row of history, in seq order, with its tombstones decoded (nil when NULL).
    static func deletions(_ store: LogStore) async throws -> [Deletion] {
        let rows = try await store.read { db in
            try db.rows("SELECT entity, row_count, tombstones FROM history WHERE operation = 2 ORDER BY seq")
        }
        return try rows.map { row in
            Deletion(
                entity: row[0].integer ?? -1, rowCount: row[1].integer ?? -1,
                tombstones: try row[2].text.map { try JSONDecoder().decode([HistoryTombstone].self, from: Data($0.utf8)) })
        }
    }

    static func storeOldRequest(_ store: LogStore, status: Int, body: String) {
        store.storeRequest(
            NetworkRequest(url: url), response: NetworkResponse(url: url, statusCode: status), error: nil,
            data: Data(body.utf8), createdAt: now.addingTimeInterval(-2 * 86_400))
    }

    @Test func anAgeSweepKeepsTheTasksAndBlobsFields() async throws {
        // Both requests in one transaction, whatever the machine's speed: only flush() commits.
        var configuration = Self.configuration()
        configuration.isGroupCommitEnabled = false
        configuration.saveInterval = .seconds(600)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            Self.storeOldRequest(store, status: 404, body: #"{"old":1}"#)
            Self.storeOldRequest(store, status: 200, body: #"{"old":2}"#)
            store.storeMessage(createdAt: Self.now, label: "app", level: .info, message: "kept")
            try await store.flush()
            let uuids = try await store.tasks(TaskQuery()).tasks.map(\.id.uuidString)
            let inserted = try await store.read { db in
                try db.rows("SELECT row_count FROM history WHERE entity = 3 AND operation = 0").map { $0[0].integer }
            }
            #expect(inserted == [2], "both bodies' blob rows recorded as inserted")

            _ = try await store.sweep()
            let deletions = try await Self.deletions(store)
            let tasks = try #require(deletions.first { $0.entity == 1 }?.tombstones)
            #expect(tasks.count == 2)
            #expect(tasks.map(\.id) == tasks.map(\.id).sorted())
            #expect(Set(tasks.compactMap { $0.fields["uuid"]?.text }) == Set(uuids))
            #expect(tasks.allSatisfy { $0.fields["url"]?.text == Self.url.absoluteString })
            #expect(Set(tasks.compactMap { $0.fields["status_code"]?.integer }) == [404, 200])
            #expect(tasks.allSatisfy { $0.fields["state"]?.integer != nil && $0.fields.count == 4 })
            let blobs = try #require(deletions.first { $0.entity == 3 })
            #expect(blobs.rowCount == 2)
            let keys = blobs.tombstones?.compactMap { $0.fields["key"]?.text } ?? []
            #expect(keys.count == 2 && keys.allSatisfy { $0.count == 40 && $0.allSatisfy(\.isHexDigit) })
            // The tasks' technical messages went too, without tombstones (messages keep none by default).
            let messages = try #require(deletions.first { $0.entity == 0 })
            #expect(messages.rowCount == 2 && messages.tombstones == nil)
        }
    }

    @Test func removeSessionsKeepsTheSessionsFields() async throws {
        try await withTemporaryStoreURL { url in
            let first = try await withStore(at: url, configuration: Self.configuration()) { store in
                Self.storeOldRequest(store, status: 500, body: "x")
                try await store.flush()
                return try #require(try await store.info().currentSession)
            }
            try await withStore(at: url, configuration: Self.configuration()) { store in
                try await store.removeSessions([first.id])
                let deletions = try await Self.deletions(store)
                let session = try #require(deletions.first { $0.entity == 2 }?.tombstones)
                #expect(session.count == 1)
                #expect(session.first?.fields["uuid"]?.text == first.id.uuidString)
                let started = try #require(session.first?.fields["started_at"]?.real)
                #expect(abs(started - first.startDate.timeIntervalSince1970) < 0.001)
                let task = try #require(deletions.first { $0.entity == 1 }?.tombstones?.first)
                #expect(task.fields["status_code"] == .integer(500))
            }
        }
    }

    @Test func messagesKeepNoneByDefaultAndTheConfiguredFieldsWhenAsked() async throws {
        for keepsMessages in [false, true] {
            var tombstones = HistoryConfiguration.defaultTombstones
            if keepsMessages { tombstones[.message] = ["level", "created_at", "level", "id"] }
            try await withTemporaryStore(configuration: Self.configuration(tombstones: tombstones)) { store, _ in
                store.storeMessage(createdAt: Self.now, label: "app", level: .warning, message: "one")
                store.storeMessage(createdAt: Self.now, label: "app", level: .error, message: "two")
                try await store.flush()
                try await store.removeAll()
                let messages = try #require(try await Self.deletions(store).first { $0.entity == 0 })
                #expect(messages.rowCount == 2)
                if keepsMessages {
                    let kept = try #require(messages.tombstones)
                    #expect(kept.map { $0.fields["level"] } == [.integer(4), .integer(5)])
                    #expect(kept.allSatisfy { $0.fields.keys.sorted() == ["created_at", "level"] })
                    #expect(kept.first?.fields["created_at"]?.real == Self.now.timeIntervalSince1970)
                } else {
                    #expect(messages.tombstones == nil)
                }
            }
        }
    }

    @Test func anUnknownFieldIsRefusedAtOpenBeforeTheStoreIsCreated() async throws {
        for tombstones: [HistoryEntity: [String]] in [[.task: ["url", "password"]], [.message: ["text"]], [.blob: ["data"]]] {
            try await withTemporaryStoreURL { url in
                await #expect(throws: LogStoreError.invalidArgument("")) {
                    _ = try await LogStore(storeURL: url, configuration: Self.configuration(tombstones: tombstones))
                }
                #expect(!FileManager.default.fileExists(atPath: url.path))
            }
        }
    }
}
