import Foundation
import Synchronization
import Testing

@testable import LogStore

/// A process that opened the store before any author existed records its changes from the
/// moment an author registers, in whichever process: a shipper started beside a running app
/// must not miss what the app logs after it.
@Suite("History starts in processes already writing")
struct HistoryLateAuthorTests {
    @Test func aWriterOpenedBeforeTheFirstAuthorRecordsWhatItCommitsAfterIt() async throws {
        let helper = ExitDrainTests.helper
        try #require(FileManager.default.isExecutableFile(atPath: helper.path), "missing \(helper.path)")
        try await withTemporaryStoreURL { url in
            try await withStore(at: url, options: [.create]) { _ in }
            // A child logging 100 messages a second until it is killed: the author registers
            // while it writes, however long opening a store takes on a loaded machine.
            let writer = try ChildProcess(helper, ["steady", url.path, "1000000", "100"])
            defer { writer.stop() }
            try await waitFor(seconds: 120) {
                try await withStore(at: url, options: []) { store in try await Self.lastMessageID(store) >= 20 }
            }
            let delivered = Mutex<[Int64]>([])
            try await withStore(at: url, options: [], configuration: historyConfiguration("shipper")) { store in
                // Committed before the registration, or just after it: everything above is history.
                let before = try await Self.lastMessageID(store)
                await store.registerMergeHook { batch in
                    let ids = batch.transactions.flatMap(\.changes)
                        .filter { $0.entity == .message && $0.operation == .insert }.flatMap { $0.ids.map { $0 } }
                    delivered.withLock { $0 += ids }
                    return .goOn
                }
                // A hundred more messages after the registration, then the child dies mid-stream.
                try await waitFor(seconds: 120) { try await Self.lastMessageID(store) > before + 100 }
                writer.stop()
                _ = try await writer.waitForExit(seconds: 30)
                let last = try await Self.lastMessageID(store)
                try await waitFor(seconds: 60) { delivered.withLock { $0.last } == last }
                let got = delivered.withLock { $0 }
                #expect(Set(got).count == got.count, "no insert delivered twice")
                let first = try #require(got.first)
                #expect(first <= before + 1, "the first insert after the registration came")
                #expect(got == Array(first...last), "every insert after the registration came, in order")
            }
            let authors = try await withStore(at: url, options: []) { store in
                try await store.read { db in try db.rows("SELECT name, kind FROM history_authors ORDER BY name") }
            }
            #expect(authors.contains { $0[0].text == "\(HistoryConfiguration.unconfiguredAuthorPrefix)LogStoreTestHelper" && $0[1].integer == 1 },
                    "the child wrote as the implicit batch author: \(authors)")
        }
    }

    static func lastMessageID(_ store: LogStore) async throws -> Int64 {
        try await store.read { db in try db.rows("SELECT coalesce(max(id), 0) FROM messages").first?[0].integer ?? 0 }
    }
}
