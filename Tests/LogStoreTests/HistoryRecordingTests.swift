import Foundation
import Testing

@testable import LogStore

/// With a history configuration, every writer transaction records what it changed, one row per
/// entity and operation, by id ranges, under the current author; without one, nothing.
@Suite("History recording")
struct HistoryRecordingTests {
    static let url = URL(string: "https://api.example.com/items")!

    /// (entity, operation, row count, ids) of every history row, in seq order.
    static func historyRows(_ store: LogStore) async throws -> [(Int64, Int64, Int64, IDRanges?)] {
        try await store.read { db in
            try db.rows("SELECT entity, operation, row_count, ids FROM history ORDER BY seq").map { row in
                var ids: IDRanges?
                if case .blob(let bytes) = row[3] { ids = IDRanges(encoded: bytes) }
                return (row[0].integer ?? -1, row[1].integer ?? -1, row[2].integer ?? -1, ids)
            }
        }
    }

    @Test func aBatchIsOneRowPerEntityAndOperation() async throws {
        var configuration = LogStore.Configuration()
        configuration.history = HistoryConfiguration(currentAuthor: "server")
        // One batch, whatever the machine's speed: only flush() commits.
        configuration.isGroupCommitEnabled = false
        configuration.saveInterval = .seconds(600)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            for i in 0..<10 { store.storeMessage(label: "app", level: .info, message: "m \(i)") }
            store.storeRequest(NetworkRequest(url: Self.url), response: NetworkResponse(url: Self.url, statusCode: 200), error: nil, data: nil)
            try await store.flush()
            let rows = try await Self.historyRows(store)
            // The session at open; then the batch: its messages (10 and the task's technical one)
            // and its task.
            #expect(rows.map { [$0.0, $0.1, $0.2] } == [[2, 0, 1], [0, 0, 11], [1, 0, 1]])
            #expect(rows[1].3?.ranges.count == 1)
            let authors = try await store.read { db in try db.rows("SELECT name, kind, cursor FROM history_authors") }
            #expect(authors.map { $0[0].text } == ["server"])
        }
    }

    @Test func withoutAConfigurationNothingIsRecorded() async throws {
        try await withTemporaryStore { store, _ in
            store.storeMessage(label: "app", level: .info, message: "m")
            try await store.flush()
            #expect(try await Self.historyRows(store).isEmpty)
        }
    }

    @Test func aProcessWithoutAConfigurationRecordsAsABatchAuthorOnceTheStoreRecords() async throws {
        try await withTemporaryStoreURL { url in
            var configuration = LogStore.Configuration()
            configuration.history = HistoryConfiguration(currentAuthor: "server")
            try await withStore(at: url, configuration: configuration) { store in
                store.storeMessage(label: "app", level: .info, message: "kept")
                try await store.flush()
            }
            // A maintenance tool (a cron sweep, a removal) opened without one.
            try await withStore(at: url, options: []) { store in try await store.removeAll() }
            let rows = try await withStore(at: url, options: [.readonly]) { store in
                try await store.read { db in
                    try db.rows("""
                        SELECT a.name, a.kind, h.entity, h.operation FROM history h JOIN history_authors a ON a.id = h.author_id
                        WHERE h.operation = 2 ORDER BY h.seq
                        """)
                }
            }
            let deletes = rows.map { [$0[0].text ?? "", "\($0[1].integer ?? -1)", "\($0[2].integer ?? -1)"] }
            #expect(deletes.contains { $0[0].hasPrefix(HistoryConfiguration.unconfiguredAuthorPrefix) && $0[1] == "1" && $0[2] == "0" })
        }
    }

    @Test func aSessionRecordedWithItsFirstBatchIsRecordedInHistory() async throws {
        var configuration = LogStore.Configuration()
        configuration.history = HistoryConfiguration(currentAuthor: "tool")
        configuration.recordsSessionOnOpen = false
        try await withTemporaryStore(configuration: configuration) { store, _ in
            store.storeMessage(label: "app", level: .info, message: "first")
            try await store.flush()
            let rows = try await Self.historyRows(store)
            #expect(rows.map { [$0.0, $0.1] } == [[2, 0], [0, 0]])
        }
    }
}
