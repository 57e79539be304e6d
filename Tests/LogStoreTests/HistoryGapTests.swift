import Foundation
import LogStore
import Testing

/// The size limit is never held back: when its sweep deletes messages or tasks a registered,
/// required author has not consumed, `history_gaps` counts them for that author, and
/// `info().historyGapCount` (and `logstore info`) shows the sum.
@Suite("History gaps")
struct HistoryGapTests {
    static let url = URL(string: "https://api.example.com/orders")!

    static func configuration(_ author: String, sizeLimit: Int64? = nil) -> LogStore.Configuration {
        var configuration = LogStore.Configuration()
        configuration.overflowPolicy = .waitForSpace
        if let sizeLimit { configuration.sizeLimit = sizeLimit }
        configuration.history = HistoryConfiguration(
            currentAuthor: author, allAuthors: ["server", "worker", "nightly"], batchAuthors: ["nightly"])
        return configuration
    }

    /// What history records as deleted and what it counts as lost, read in one statement (one
    /// snapshot of both).
    struct Counts: Equatable {
        var deletedMessages: Int64
        var deletedTasks: Int64
        /// `author/entity` → rows lost.
        var gaps: [String: Int64]
    }

    static func counts(_ store: LogStore) async throws -> Counts {
        let row = try await store.read { db in
            try db.rows("""
                SELECT (SELECT coalesce(sum(row_count), 0) FROM history WHERE operation = 2 AND entity = 0),
                       (SELECT coalesce(sum(row_count), 0) FROM history WHERE operation = 2 AND entity = 1),
                       (SELECT group_concat(history_authors.name || '/' || history_gaps.entity || '=' || history_gaps.row_count)
                        FROM history_gaps JOIN history_authors ON history_authors.id = history_gaps.author_id)
                """)
        }.first
        var gaps: [String: Int64] = [:]
        for entry in (row?[2].text ?? "").split(separator: ",") {
            let parts = entry.split(separator: "=")
            if parts.count == 2 { gaps[String(parts[0])] = Int64(parts[1]) }
        }
        return Counts(deletedMessages: row?[0].integer ?? -1, deletedTasks: row?[1].integer ?? -1, gaps: gaps)
    }

    @Test func intersectionCountCountsTheSharedIDs() {
        let a = IDRanges([1, 2, 3, 10, 11, 20] + Array(100...199))
        let b = IDRanges([2, 3, 4, 11, 12, 19, 21] + Array(150...300))
        #expect(a.intersectionCount(b) == 3 + 50)
        #expect(b.intersectionCount(a) == 3 + 50)
        #expect(a.intersectionCount(IDRanges()) == 0)
        #expect(a.intersectionCount(a) == a.count)
        #expect(IDRanges([5]).intersectionCount(IDRanges([4, 6])) == 0)
    }

    @Test func aSizeSweepCountsWhatEachRequiredAuthorHadNotConsumed() async throws {
        try await withTemporaryStoreURL { url in
            let server = try await LogStore(storeURL: url, options: [.create], configuration: Self.configuration("server", sizeLimit: 40_000))
            let worker = try await LogStore(storeURL: url, options: [.create], configuration: Self.configuration("worker"))
            let nightly = try await LogStore(storeURL: url, options: [.create], configuration: Self.configuration("nightly"))
            do {
                let padding = String(repeating: "p", count: 200)
                try await onOwnThread {
                    for i in 0..<300 {
                        server.storeMessage(label: "app", level: .info, message: "\(i) \(padding)")
                        if i.isMultiple(of: 100) {
                            server.storeRequest(
                                NetworkRequest(url: Self.url), response: NetworkResponse(url: Self.url, statusCode: 200),
                                error: nil, data: nil)
                        }
                    }
                }
                try await server.flush()
                _ = try await server.sweep()

                let swept = try await Self.counts(server)
                #expect(swept.deletedMessages > 0 && swept.deletedTasks > 0)
                // Only the worker lost rows: the server wrote them, the nightly import is a batch author.
                #expect(swept.gaps == ["worker/0": swept.deletedMessages, "worker/1": swept.deletedTasks])
                #expect(try await worker.info().historyGapCount > 0)

                // An explicit removal is the caller's choice: what it deletes is no gap.
                try await server.removeAll()
                let removed = try await Self.counts(server)
                #expect(removed.deletedMessages > swept.deletedMessages)
                #expect((removed.gaps["worker/0"] ?? 0) < removed.deletedMessages)
            } catch {
                for store in [server, worker, nightly] { try? await store.close() }
                throw error
            }
            for store in [server, worker, nightly] { try await store.close() }

            let run = await CLIRun.run(["info", url.path], now: Date())
            #expect(run.status == 0)
            #expect(run.output.contains("History gaps"), "\(run.output)")
        }
    }

    @Test func infoShowsNoGapLineWithoutGaps() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url, configuration: Self.configuration("server")) { store in
                store.storeMessage(label: "app", level: .info, message: "m")
                try await store.flush()
                #expect(try await store.info().historyGapCount == 0)
            }
            let run = await CLIRun.run(["info", url.path], now: Date())
            #expect(run.status == 0 && !run.output.contains("History gaps"))
        }
    }
}
