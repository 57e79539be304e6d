import Foundation
import Synchronization
@testable import LogStore
import Testing

/// The full-text index kept in step with every deletion (no ghosts, nothing missed after), and
/// built for stores made before it existed.
@Suite("Search index")
struct SearchIndexTests {
    static func waitUntilIndexed(_ store: LogStore) async throws {
        try await withinTimeLimit(seconds: 30) {
            while try await store.info().unindexedMessageCount > 0 { try await Task.sleep(for: .milliseconds(5)) }
        }
    }

    static func found(_ store: LogStore, _ word: String) async throws -> [String] {
        try await store.messages(MessageQuery(text: .plain(word), order: .oldestFirst, limit: 1000)).messages.map(\.text)
    }

    /// The index's own view, straight from SQLite: which ids it holds for `word`.
    static func indexedIDs(_ url: URL, _ word: String) throws -> [Int64] {
        let connection = try Connection(path: StoreFiles.databaseURL(in: url).path, mode: .readOnly)
        defer { connection.close() }
        return try connection.integers("SELECT rowid FROM message_search WHERE message_search MATCH ? ORDER BY rowid", [.text(word)])
    }

    @Test func aSweepLeavesNoGhosts() async throws {
        let now = Date()
        var configuration = LogStore.Configuration()
        configuration.maxAge = .seconds(3_600)
        configuration.timeSource = LogStore.TimeSource(now: { now }, sleep: { try await Task.sleep(for: $0) })
        try await withTemporaryStore(configuration: configuration) { store, url in
            for i in 0..<50 {
                store.storeMessage(createdAt: now.addingTimeInterval(-7_200), label: "app", level: .info, message: "old \(i) sweepable")
            }
            for i in 0..<5 { store.storeMessage(createdAt: now, label: "app", level: .info, message: "new \(i) sweepable") }
            try await store.flush()
            try await Self.waitUntilIndexed(store)
            #expect(try Self.indexedIDs(url, "sweepable").count == 55)
            let report = try await store.sweep()
            #expect(report.removedMessages == 50)
            #expect(try await Self.found(store, "sweepable") == (0..<5).map { "new \($0) sweepable" })
            #expect(try await store.count(MessageQuery(text: .plain("old"))) == 0)
            #expect(try Self.indexedIDs(url, "sweepable").count == 5)
            #expect(try Self.indexedIDs(url, "old").isEmpty)
        }
    }

    /// New segments keep arriving while logging goes on: compacting the index after a large
    /// sweep must still end (an incremental optimize alone would merge forever).
    @Test func aSweepEndsWhileLoggingGoesOn() async throws {
        let now = Date()
        var configuration = LogStore.Configuration()
        configuration.maxAge = .seconds(3_600)
        configuration.timeSource = LogStore.TimeSource(now: { now }, sleep: { try await Task.sleep(for: $0) })
        // The old messages are logged in one burst, faster than any writer drains it: all of it
        // must fit, or the overflow policy drops some and the sweep finds fewer.
        configuration.maxPendingEvents = 40_000
        try await withTemporaryStore(configuration: configuration) { store, _ in
            try await onOwnThread {
                for i in 0..<20_000 {
                    store.storeMessage(createdAt: now.addingTimeInterval(-7_200), label: "app", level: .info, message: "old \(i) word\(i % 50)")
                }
            }
            try await store.flush()
            try await Self.waitUntilIndexed(store)
            let logging = Atomic<Bool>(true)
            let logger = Thread {
                var i = 0
                while logging.load(ordering: .relaxed) {
                    store.storeMessage(createdAt: now, label: "app", level: .info, message: "new \(i) word\(i % 50)")
                    i += 1
                }
            }
            logger.start()
            let report = try await withinTimeLimit(seconds: 60) { try await store.sweep() }
            logging.store(false, ordering: .relaxed)
            #expect(report.removedMessages == 20_000)
            try await store.flush()
            #expect(try await store.count(MessageQuery(text: .plain("old"))) == 0)
        }
    }

    /// After `removeAll` SQLite hands out the removed ids again: the index must not take them
    /// for indexed ones, nor return the removed texts for them.
    @Test func removeAllLeavesNoGhostsAndTheNextMessagesAreFound() async throws {
        try await withTemporaryStore { store, url in
            for i in 0..<40 { store.storeMessage(label: "app", level: .info, message: "before \(i) apple") }
            try await store.flush()
            try await Self.waitUntilIndexed(store)
            try await store.removeAll()
            #expect(try await Self.found(store, "apple").isEmpty)
            #expect(try Self.indexedIDs(url, "apple").isEmpty)
            for i in 0..<3 { store.storeMessage(label: "app", level: .info, message: "after \(i) banana") }
            try await store.flush()
            #expect(try await Self.found(store, "banana") == ["after 0 banana", "after 1 banana", "after 2 banana"])
            #expect(try await Self.found(store, "apple").isEmpty)
            try await Self.waitUntilIndexed(store)
            #expect(try await Self.found(store, "banana").count == 3)
            #expect(try Self.indexedIDs(url, "banana").count == 3)
            #expect(try Self.indexedIDs(url, "apple").isEmpty)
        }
    }

    /// The newest messages were never indexed (a writer with the index off logged them) when
    /// everything is removed: the position must still come down, or the next messages' ids
    /// would count as indexed (missed by searches, and a corrupt index when deleted).
    @Test func removingUnindexedNewestMessagesBringsThePositionDown() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                for i in 0..<40 { store.storeMessage(label: "app", level: .info, message: "indexed \(i) elder") }
                try await store.flush()
                try await Self.waitUntilIndexed(store)
            }
            var unindexed = LogStore.Configuration()
            unindexed.isSearchIndexEnabled = false
            try await withStore(at: url, configuration: unindexed) { store in
                for i in 0..<20 { store.storeMessage(label: "app", level: .info, message: "unindexed \(i) elder") }
                try await store.flush()
                try await store.removeAll()
                for i in 0..<5 { store.storeMessage(label: "app", level: .info, message: "fresh \(i) fig") }
                try await store.flush()
                #expect(try await Self.found(store, "fig").count == 5)
                #expect(try await store.info().unindexedMessageCount == 5)
                try await store.removeAll()
                #expect(try await Self.found(store, "fig").isEmpty)
                #expect(try await Self.found(store, "elder").isEmpty)
            }
        }
    }

    @Test func removeSessionsLeavesNoGhosts() async throws {
        try await withTemporaryStoreURL { url in
            let first = try await withStore(at: url) { store in
                for i in 0..<20 { store.storeMessage(label: "app", level: .info, message: "first run \(i) cherry") }
                try await store.flush()
                try await Self.waitUntilIndexed(store)
                return store.session.id
            }
            try await withStore(at: url) { store in
                for i in 0..<5 { store.storeMessage(label: "app", level: .info, message: "second run \(i) cherry") }
                try await store.flush()
                try await Self.waitUntilIndexed(store)
                try await store.removeSessions([first])
                #expect(try await Self.found(store, "cherry") == (0..<5).map { "second run \($0) cherry" })
                #expect(try await store.count(MessageQuery(text: .plain("first"))) == 0)
                #expect(try Self.indexedIDs(url, "first").isEmpty)
            }
        }
    }

    /// A `DELETE` by another tool goes through the same trigger.
    @Test func rowsDeletedWithSQLiteLeaveTheIndex() async throws {
        try await withTemporaryStore { store, url in
            for i in 0..<10 { store.storeMessage(label: "app", level: .info, message: "row \(i) damson") }
            try await store.flush()
            try await Self.waitUntilIndexed(store)
            let connection = try Connection(path: StoreFiles.databaseURL(in: url).path, mode: .readWrite(create: false))
            // The store's writer may hold the write lock (an index step): wait for it, as any tool would.
            try connection.setBusyTimeout()
            try connection.execute("DELETE FROM messages WHERE text LIKE 'row 1 %' OR text LIKE 'row 9 %'")
            connection.close()
            #expect(try await Self.found(store, "damson").count == 8)
            #expect(try Self.indexedIDs(url, "damson").count == 8)
        }
    }

    /// A store made before the index (schema 3) gets it when opened, built by the writer.
    @Test func anOlderStoreGainsItsIndex() async throws {
        let fixtures = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
        try await withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent("store-v3.logstore")
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent("store-v3.logstore"), to: copy)
            try await withStore(at: copy, options: []) { store in
                let total = try await store.count(MessageQuery())
                let sample = try #require(try await store.messages(MessageQuery(order: .oldestFirst, limit: 1)).messages.first)
                let word = try #require(sample.text.split(separator: " ").first.map(String.init))
                let beforeIndexing = try await store.count(MessageQuery(text: .plain(word)))
                try await Self.waitUntilIndexed(store)
                #expect(total > 0)
                #expect(beforeIndexing > 0)
                #expect(try await store.count(MessageQuery(text: .plain(word))) == beforeIndexing)
                #expect(try Self.indexedIDs(copy, word).count >= beforeIndexing)
            }
        }
    }
}
