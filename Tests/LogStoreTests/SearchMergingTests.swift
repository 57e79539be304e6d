import Foundation
@testable import LogStore
import Testing

/// The writer's idle merges of the full-text index (``SearchMerging``): once logging pauses,
/// every sealed partition becomes one segment, and searches find exactly what they found before.
@Suite("Search merging")
struct SearchMergingTests {
    /// How many segments each partition's table is made of, oldest partition first (FTS5's
    /// `_idx` table has a row per leaf page of each segment, so its distinct `segid`s).
    static func segments(_ url: URL) throws -> [(table: String, isOpen: Bool, segments: Int64)] {
        let connection = try Connection(path: StoreFiles.databaseURL(in: url).path, mode: .readOnly)
        defer { connection.close() }
        return try SearchPartitions.list(connection).map { partition in
            let count = try connection.integer("SELECT count(DISTINCT segid) FROM \(partition.table)_idx") ?? 0
            return (partition.table, partition.isOpen, count)
        }
    }

    /// The store's count of write transactions (``StoreIdentity``).
    static func commits(_ store: LogStore) async throws -> Int64? {
        try await store.read { db in try db.scalar("SELECT commits FROM store_identity")?.integer }
    }

    /// Logs "plum <n>" for each `n` in 400 × `batches`, a flush after each 400 and, when
    /// `indexing`, a wait until the index has caught up: each indexing step a segment of its own.
    static func logInSmallSteps(
        _ store: LogStore, now: Date, batches: Range<Int>, indexing: Bool = true,
        text: (Int) -> String = { "plum \($0)" }
    ) async throws {
        for batch in batches {
            for i in 0..<400 { store.storeMessage(createdAt: now, label: "app", level: .info, message: text(batch * 400 + i)) }
            try await store.flush()
            if indexing { try await SearchIndexTests.waitUntilIndexed(store) }
        }
    }

    /// Waits (30 s at most) until every sealed partition is one segment.
    static func waitUntilSealedPartitionsAreMerged(_ url: URL) async throws {
        try await withinTimeLimit(seconds: 30) {
            while try segments(url).contains(where: { !$0.isOpen && $0.segments != 1 }) {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    static func snapshot(_ store: LogStore) async throws -> [String: [Int64]] {
        var found: [String: [Int64]] = [:]
        for word in ["plum", "word3", "\"plum 42\"", "nothing"] {
            let query = MessageQuery(text: word.hasPrefix("\"") ? .fts5(word) : .plain(word), order: .oldestFirst, limit: 20_000)
            found[word] = try await store.messages(query).messages.map(\.id)
        }
        return found
    }

    /// Messages indexed in many small steps (a flush between each few hundred) leave each
    /// partition made of about ten segments, which FTS5's own `automerge` (12) never merges; a
    /// second after logging pauses, the sealed ones are one segment each, and every search finds
    /// the same messages as before. (The writer may begin merging while the test still logs, so
    /// the segments before are not asserted: without the writer's merges none would be one.)
    @Test func sealedPartitionsBecomeOneSegmentOnceLoggingPauses() async throws {
        let now = Date()
        try await withTemporaryStore(configuration: SearchIndexTests.smallPartitions(now: now)) { store, url in
            try await Self.logInSmallSteps(store, now: now, batches: 0..<24) { "plum \($0 % 100) word\($0 % 7)" }
            let before = try Self.segments(url)
            #expect(before.filter { !$0.isOpen }.count >= 2, "\(before.map(\.table))")
            let found = try await Self.snapshot(store)
            #expect(found["plum"]?.count == 9_600)
            #expect(found["\"plum 42\""]?.count == 96)
            try await Self.waitUntilSealedPartitionsAreMerged(url)
            #expect(try await Self.snapshot(store) == found)
        }
    }

    /// Two processes log into one store at once: the other process's writer commits and indexes
    /// while this one's merges (it is idle once its own messages are in, a second after it
    /// opened). Once both pause, every sealed partition is one segment, searches find each
    /// process's messages exactly once, and the database is sound.
    @Test func twoProcessesLoggingAndMergingLeaveOneSegmentPerPartition() async throws {
        let helper = testHelperExecutable
        try #require(FileManager.default.isExecutableFile(atPath: helper.path), "missing \(helper.path)")
        let now = Date()
        try await withTemporaryStore(configuration: SearchIndexTests.smallPartitions(now: now)) { store, url in
            // First alone, indexed by this writer in its small partitions (two are sealed), then
            // beside the other process, whose writer indexes with its own (larger) share.
            try await Self.logInSmallSteps(store, now: now, batches: 0..<21)
            async let child = ManyWritersTests.run(helper, ["writers", url.path, "10000", "other"], seconds: 60)
            try await Self.logInSmallSteps(store, now: now, batches: 21..<40, indexing: false)
            let report = try await child
            #expect(report.status == 0, "\(report.output)")
            try await SearchIndexTests.waitUntilIndexed(store)
            try await Self.waitUntilSealedPartitionsAreMerged(url)
            #expect(try Self.segments(url).filter { !$0.isOpen }.count >= 2)
            #expect(try await store.count(MessageQuery(text: .plain("plum"))) == 16_000)
            #expect(try await store.count(MessageQuery(text: .plain("other"))) == 10_000)
            let check = try await store.read { db in try db.scalar("PRAGMA integrity_check")?.text }
            #expect(check == "ok")
        }
    }

    /// A store with nothing left to merge writes nothing while idle: the writer wakes every
    /// save interval, and a merge step that began a transaction before looking would commit
    /// each time (readers, tails and other processes would see a change every 300 ms).
    @Test func anIdleMergedStoreCommitsNothing() async throws {
        let now = Date()
        try await withTemporaryStore(configuration: SearchIndexTests.smallPartitions(now: now)) { store, url in
            try await Self.logInSmallSteps(store, now: now, batches: 0..<12)
            try await Self.waitUntilSealedPartitionsAreMerged(url)
            // The open partition's last merge attempts may still commit; then 1.2 s (four
            // wake-ups) pass without a commit. Committing at every wake-up never would.
            try await withinTimeLimit(seconds: 30) {
                while true {
                    let before = try await Self.commits(store)
                    try await Task.sleep(for: .milliseconds(1_200))
                    if try await Self.commits(store) == before { return }
                }
            }
        }
    }

    /// Single writes on the writer (here a history author retired again every 100 ms, as a
    /// history merger advances its cursor after each batch another process commits) do not hold
    /// the merges back; only the steps of long work, a sweep's, do.
    @Test func singleWritesDoNotHoldMergesBack() async throws {
        let now = Date()
        var configuration = SearchIndexTests.smallPartitions(now: now)
        configuration.history = HistoryConfiguration(currentAuthor: "a", allAuthors: ["a", "b"])
        try await withTemporaryStore(configuration: configuration) { store, url in
            let writing = Task {
                while !Task.isCancelled {
                    try await store.retireHistoryAuthor("b")
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            defer { writing.cancel() }
            try await Self.logInSmallSteps(store, now: now, batches: 0..<12)
            #expect(try Self.segments(url).filter { !$0.isOpen }.count >= 1)
            try await Self.waitUntilSealedPartitionsAreMerged(url)
        }
    }

    /// Searches of one shape reuse their prepared statements: they stay right after the
    /// partitions they read are dropped by a sweep, and after `removeAll()` when new partitions
    /// take the dropped ones' numbers (and so the kept statements' SQL) again.
    @Test func repeatedSearchesStayRightAcrossDropsAndRenumbering() async throws {
        let now = Date()
        try await withTemporaryStore(configuration: SearchIndexTests.smallPartitions(now: now)) { store, url in
            try await SearchIndexTests.logOld(9_000, thenNew: 5, word: "plum", into: store, now: now)
            let query = MessageQuery(text: .plain("plum"), limit: 10)
            for _ in 0..<3 { #expect(try await store.messages(query).messages.count == 10) }
            #expect(try await store.count(query) == 9_005)
            _ = try await store.sweep()
            for _ in 0..<3 {
                #expect(try await store.messages(query).messages.map(\.text) == (0..<5).reversed().map { "new \($0) plum" })
            }
            #expect(try await store.count(query) == 5)

            let before = try SearchIndexTests.partitions(url)
            try await store.removeAll()
            try await onOwnThread {
                for i in 0..<9_000 {
                    store.storeMessage(createdAt: now, label: "app", level: .info, message: "again \(i) plum")
                }
            }
            try await store.flush()
            try await SearchIndexTests.waitUntilIndexed(store)
            let after = try SearchIndexTests.partitions(url)
            #expect(after.contains { before.contains($0) }, "\(before) then \(after)")
            for _ in 0..<3 {
                #expect(try await store.messages(query).messages.map(\.text) == (8_990..<9_000).reversed().map { "again \($0) plum" })
                #expect(try await store.count(query) == 9_000)
            }
        }
    }
}
