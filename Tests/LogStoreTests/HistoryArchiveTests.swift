import Foundation
import Testing

@testable import LogStore

/// An archive carries no change history: it serves the processes that share a live store, and
/// its tombstones keep fields of rows deleted on purpose.
@Suite("History in archives")
struct HistoryArchiveTests {
    @Test func anArchiveOfAStoreWithHistoryHoldsNoneOfIt() async throws {
        try await withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("store.logstore")
            let archiveURL = directory.appendingPathComponent("store.lsarchive")
            let store = try await LogStore(storeURL: url, configuration: historyConfiguration("server"))
            let secret = URL(string: "https://api.example.com/private-report")!
            store.storeRequest(
                NetworkRequest(url: secret), response: NetworkResponse(url: secret, statusCode: 200), error: nil,
                data: nil)
            store.storeMessage(label: "app", level: .info, message: "kept")
            try await store.flush()
            #expect(try await historyRowCount(store) > 0)
            _ = try await store.export(to: archiveURL)
            try await store.close()

            let archive = try await LogStore(archiveURL: archiveURL)
            let counts = try await archive.read { db in
                try db.rows("SELECT (SELECT count(*) FROM history), (SELECT count(*) FROM history_authors)")
                    .first?.values.map { $0.integer ?? -1 }
            }
            #expect(counts == [0, 0])
            #expect(try await archive.count(MessageQuery()) == 1)
            try await archive.close()
        }
    }
}
