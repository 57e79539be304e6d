import Foundation
import LogStore
import Testing

/// `historyStatus()` and `retireHistoryAuthor(_:)` through the public API: authors, how far
/// behind each is, the history's size, what a cleanup could delete, and stores without history.
@Suite("History status")
struct HistoryStatusTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func configuration(_ author: String, batch: Set<String> = []) -> LogStore.Configuration {
        var configuration = LogStore.Configuration()
        configuration.history = HistoryConfiguration(
            currentAuthor: author, allAuthors: ["server", "worker"], batchAuthors: batch)
        return configuration
    }

    /// Each message flushed on its own, so each is one transaction, whatever the writer's timing.
    static func log(_ store: LogStore, _ count: Int) async throws {
        for index in 0..<count {
            store.storeMessage(label: "app", level: .info, message: "m \(index)")
            try await store.flush()
        }
    }

    /// Two runs: `server` (its session, 1 message: seq 1–2; its open named `worker` too, both
    /// cursors at 0), then `worker` (its session and 2 messages: seq 3–5). Neither merges.
    static func makeTwoAuthorStore(at url: URL) async throws {
        try await withStore(at: url, configuration: configuration("server")) { try await log($0, 1) }
        try await withStore(at: url, options: [], configuration: configuration("worker")) { try await log($0, 2) }
    }

    static func status(at url: URL) async throws -> HistoryStatus {
        try await withStore(at: url, options: [.readonly]) { try await $0.historyStatus() }
    }

    @Test func eachAuthorIsBehindByWhatTheOthersWrote() async throws {
        try await withTemporaryStoreURL { url in
            try await Self.makeTwoAuthorStore(at: url)
            let status = try await Self.status(at: url)
            #expect(status.isRecorded)
            #expect(status.authors.map(\.name) == ["server", "worker"])
            let server = try #require(status.authors.first)
            let worker = try #require(status.authors.last)
            // Its own transactions moved its cursor while it was caught up (seq 2); then the worker's came.
            #expect(server.kind == .required && server.cursor == 2 && server.merges == 0 && server.lastMerge == nil)
            #expect(server.behindChanges == 3 && server.behindTransactions == 3)
            // Named by the server's open, the worker was kept the server's changes.
            #expect(worker.cursor == 0 && worker.behindChanges == 2 && worker.behindTransactions == 2)
            #expect(worker.registered >= server.registered)
            #expect(server.retired == nil && server.gapRows.isEmpty)
            #expect(status.changeCount == 5)
            #expect(status.firstSequence == 1 && status.lastSequence == 5)
            // Five rows of one short id range each, no tombstones.
            #expect((5 * HistoryStatus.rowOverhead...5 * (HistoryStatus.rowOverhead + 8)).contains(status.byteCount))
            #expect(status.lastCleanup == nil && status.cleanedThrough == 0)
            // server has consumed nothing: nothing may go.
            #expect(status.cleanupLimit == 0 && status.cleanableChangeCount == 0)
        }
    }

    @Test func aBatchAuthorHoldsNothingBack() async throws {
        try await withTemporaryStoreURL { url in
            var importer = LogStore.Configuration()
            importer.history = HistoryConfiguration(currentAuthor: "import", batchAuthors: ["import"])
            try await withStore(at: url, configuration: importer) { try await Self.log($0, 1) }
            try await withStore(at: url, options: [], configuration: Self.configuration("server")) { _ in }
            let status = try await Self.status(at: url)
            let batch = try #require(status.authors.first { $0.name == "import" })
            #expect(batch.kind == .batch)
            // server registered at seq 2 (after import's session and message): those may go.
            #expect(status.cleanupLimit == 2 && status.cleanableChangeCount == 2)
        }
    }

    @Test func retiringAnAuthorReleasesCleanupUntilItOpensAgain() async throws {
        try await withTemporaryStoreURL { url in
            try await Self.makeTwoAuthorStore(at: url)
            try await withStore(at: url, options: []) { store in
                try await store.retireHistoryAuthor("server")
                let status = try await store.historyStatus()
                let server = try #require(status.authors.first { $0.name == "server" })
                let retired = try #require(server.retired)
                // worker's cursor holds it now.
                #expect(status.cleanupLimit == 0)
                try await store.retireHistoryAuthor("worker")
                // Only batch authors are left (this open's own, unconfigured, among them):
                // everything may go.
                let released = try await store.historyStatus()
                #expect(released.cleanupLimit == released.lastSequence)
                #expect(released.cleanableChangeCount == released.changeCount)
                // Retiring again keeps the first date.
                try await store.retireHistoryAuthor("server")
                #expect(try await store.historyStatus().authors.first?.retired == retired)
            }
            try await withStore(at: url, options: [], configuration: Self.configuration("server")) { _ in }
            let status = try await Self.status(at: url)
            let server = try #require(status.authors.first { $0.name == "server" })
            #expect(server.retired == nil && server.cursor == 2)
            // Back, the server holds cleanup at its cursor again (the worker stays retired).
            #expect(status.cleanupLimit == 2)
        }
    }

    @Test func anUnknownAuthorOrAReadOnlyStoreIsRefused() async throws {
        try await withTemporaryStoreURL { url in
            try await Self.makeTwoAuthorStore(at: url)
            try await withStore(at: url, options: []) { store in
                await #expect(throws: LogStoreError.invalidArgument("")) { try await store.retireHistoryAuthor("nobody") }
                return ()
            }
            try await withStore(at: url, options: [.readonly]) { store in
                await #expect(throws: LogStoreError.readonly) { try await store.retireHistoryAuthor("server") }
                return ()
            }
            #expect(try await Self.status(at: url).authors.allSatisfy { $0.retired == nil })
        }
    }

    @Test func aStoreWithoutHistoryHasAnEmptyStatus() async throws {
        try await withTemporaryStore { store, _ in
            try await Self.log(store, 1)
            let status = try await store.historyStatus()
            #expect(status == .empty)
            #expect(!status.isRecorded)
        }
    }

    @Test func aSchema8StoreOpenedReadOnlyHasAnEmptyStatus() async throws {
        try await withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent("store-v8.logstore")
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("store-v8.logstore"), to: copy)
            let status = try await withStore(at: copy, options: [.readonly]) { store in
                #expect(try await store.info().schemaVersion == LogStore.Version(8, 0, 0))
                return try await store.historyStatus()
            }
            #expect(status == .empty)
        }
    }

    @Test func anArchiveReportsItsStatus() async throws {
        try await withTemporaryStoreURL { url in
            try await Self.makeTwoAuthorStore(at: url)
            let archiveURL = url.deletingLastPathComponent().appendingPathComponent("history.lsarchive")
            try await withStore(at: url, options: [.readonly]) { _ = try await $0.export(to: archiveURL) }
            let archive = try await LogStore(archiveURL: archiveURL)
            let status: HistoryStatus
            do {
                status = try await archive.historyStatus()
                await #expect(throws: LogStoreError.readonly) { try await archive.retireHistoryAuthor("server") }
            } catch {
                try? await archive.close()
                throw error
            }
            try await archive.close()
            // An archive carries no history (see HistoryArchiveTests).
            #expect(status == .empty)
        }
    }

    @Test func gapsAreReportedPerEntity() async throws {
        guard SQLiteShell.isAvailable else {
            print("HistoryStatusTests.gapsAreReportedPerEntity skipped: no \(SQLiteShell.path)")
            return
        }
        try await withTemporaryStoreURL { url in
            try await Self.makeTwoAuthorStore(at: url)
            // What the size sweep records for an author that had not read the rows it deleted.
            try SQLiteShell.run(url.appendingPathComponent("logs.sqlite"), """
                INSERT INTO history_gaps (author_id, entity, row_count)
                SELECT id, 0, 12 FROM history_authors WHERE name = 'server'
                UNION ALL SELECT id, 1, 1 FROM history_authors WHERE name = 'server'
                """)
            let server = try #require(try await Self.status(at: url).authors.first)
            #expect(server.gapRows == [.message: 12, .task: 1])
            #expect(server.gapRowCount == 13)
        }
    }
}
