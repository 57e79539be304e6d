import Foundation
import Synchronization
@testable import LogStore
import Testing

/// The full-text index in partitions: what is deleted is never found again (what is removed on
/// purpose leaves the index at once, what is swept waits unmatched until its partition is
/// dropped whole), ids are never given out twice, and stores made before it gain it.
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

    /// The index's own view, straight from SQLite: which ids its partitions hold for `word`.
    static func indexedIDs(_ url: URL, _ word: String) throws -> [Int64] {
        let connection = try Connection(path: StoreFiles.databaseURL(in: url).path, mode: .readOnly)
        defer { connection.close() }
        return try partitions(connection).flatMap { table in
            try connection.integers("SELECT rowid FROM \(table) WHERE \(table) MATCH ? ORDER BY rowid", [.text(word)])
        }.sorted()
    }

    /// Logs `old` messages "old <i> <word>" two hours before `now` (past the age limit of
    /// ``smallPartitions(now:)``), then `new` ones "new <i> <word>" at `now`, and waits until
    /// they are committed and indexed.
    static func logOld(_ old: Int, thenNew new: Int, word: String, into store: LogStore, now: Date) async throws {
        try await onOwnThread {
            for i in 0..<old {
                store.storeMessage(createdAt: now.addingTimeInterval(-7_200), label: "app", level: .info, message: "old \(i) \(word)")
            }
        }
        for i in 0..<new { store.storeMessage(createdAt: now, label: "app", level: .info, message: "new \(i) \(word)") }
        try await store.flush()
        try await waitUntilIndexed(store)
    }

    /// The partitions' tables, oldest first.
    static func partitions(_ connection: Connection) throws -> [String] {
        try connection.strings("SELECT name FROM search_partitions ORDER BY first_id")
    }

    static func partitions(_ url: URL) throws -> [String] {
        let connection = try Connection(path: StoreFiles.databaseURL(in: url).path, mode: .readOnly)
        defer { connection.close() }
        return try partitions(connection)
    }

    /// A store whose partitions hold their fewest messages (4,096: its size limit is small), an
    /// hour's age limit on a clock stopped at `now`, and room for a burst of old messages.
    static func smallPartitions(now: Date) -> LogStore.Configuration {
        var configuration = LogStore.Configuration()
        configuration.maxAge = .seconds(3_600)
        configuration.sizeLimit = 8_000_000
        configuration.maxPendingEvents = 20_000
        configuration.timeSource = LogStore.TimeSource(now: { now }, sleep: { try await Task.sleep(for: $0) })
        return configuration
    }

    /// An age sweep deletes rows and nothing else: no search finds a swept message, and the
    /// partitions only swept messages were in are dropped whole; the words of the rest wait in
    /// the partition they share with kept messages.
    @Test func aSweepFindsNoGhostsAndDropsWholePartitions() async throws {
        let now = Date()
        try await withTemporaryStore(configuration: Self.smallPartitions(now: now)) { store, url in
            try await Self.logOld(10_000, thenNew: 5, word: "sweepable", into: store, now: now)
            let before = try Self.partitions(url)
            #expect(before.count == 3, "\(before)")
            #expect(try Self.indexedIDs(url, "sweepable").count == 10_005)
            let report = try await store.sweep()
            #expect(report.removedMessages == 10_000)
            #expect(try await Self.found(store, "sweepable") == (0..<5).map { "new \($0) sweepable" })
            #expect(try await store.count(MessageQuery(text: .plain("old"))) == 0)
            #expect(try Self.partitions(url) == [before[2]])
            // The last partition holds the rest of the old words until it is dropped in turn.
            #expect(try Self.indexedIDs(url, "old").count == 10_000 - 2 * 4_096)
        }
    }

    /// An archive of a store with several partitions, some words of swept messages still in
    /// one: it opens (its partitions pass the schema check) and finds what the store finds.
    @Test func anArchiveOfPartitionsFindsWhatTheStoreFinds() async throws {
        let now = Date()
        try await withTemporaryStore(configuration: Self.smallPartitions(now: now)) { store, url in
            try await onOwnThread {
                for i in 0..<6_000 {
                    store.storeMessage(createdAt: now.addingTimeInterval(-7_200), label: "app", level: .info, message: "old \(i) quince")
                }
                for i in 0..<6_000 {
                    store.storeMessage(createdAt: now, label: "app", level: .info, message: "new \(i) quince word\(i % 7)")
                }
            }
            try await store.flush()
            try await Self.waitUntilIndexed(store)
            _ = try await store.sweep()
            #expect(try Self.partitions(url).count == 2)
            for i in 0..<3 { store.storeMessage(createdAt: now, label: "app", level: .info, message: "unindexed \(i) quince") }
            try await store.flush()
            let archiveURL = url.deletingLastPathComponent().appendingPathComponent("partitions.lsarchive")
            _ = try await store.export(to: archiveURL)
            let archive = try await LogStore(archiveURL: archiveURL)
            for search in ["quince", "old", "word3", "unindexed"] {
                let query = MessageQuery(text: .plain(search), limit: 10_000)
                #expect(try await archive.count(query) == (try await store.count(query)), "\(search)")
                #expect(try await archive.messages(query).messages.map(\.id) == (try await store.messages(query).messages.map(\.id)))
            }
            #expect(try await archive.count(MessageQuery(text: .plain("quince"))) == 6_003)
            let ranked = try await archive.messages(MessageQuery(text: .plain("word3"), order: .relevance, limit: 50))
            #expect(ranked.messages.count == 50)
            try await archive.close()
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

    /// After `removeAll` every partition is dropped, and the next messages get new ids (SQLite
    /// would hand out the removed ones again): none is taken for an indexed one.
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
    /// everything is removed: the next messages' ids come after every id given out, so none
    /// counts as indexed (missed by searches) or meets an old message's words.
    @Test func removingUnindexedNewestMessagesGivesNoIDTwice() async throws {
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

    /// A `DELETE` by another tool, of the newest rows too: what it deleted is never found, and
    /// the next message gets a new id, so the deleted one's words never match it.
    @Test func rowsDeletedWithSQLiteAreNeverFound() async throws {
        try await withTemporaryStore { store, url in
            for i in 0..<10 { store.storeMessage(label: "app", level: .info, message: "row \(i) damson") }
            try await store.flush()
            try await Self.waitUntilIndexed(store)
            let connection = try Connection(path: StoreFiles.databaseURL(in: url).path, mode: .readWrite(create: false))
            // The store's writer may hold the write lock (an index step): wait for it, as any tool would.
            try connection.setBusyTimeout()
            try connection.execute("DELETE FROM messages WHERE text LIKE 'row 1 %' OR text LIKE 'row 9 %'")
            // Changing a logged message is refused: the index relies on it.
            #expect(throws: DatabaseError.self) { try connection.execute("UPDATE messages SET text = 'changed'") }
            connection.close()
            #expect(try await Self.found(store, "damson").count == 8)
            store.storeMessage(label: "app", level: .info, message: "row 10 elderberry")
            try await store.flush()
            let newest = try #require(try await store.messages(MessageQuery(limit: 1)).messages.first)
            #expect(newest.id == 11)
            #expect(try await Self.found(store, "damson").count == 8)
            try await Self.waitUntilIndexed(store)
            #expect(try await Self.found(store, "damson").count == 8)
            #expect(try await Self.found(store, "elderberry") == ["row 10 elderberry"])
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
