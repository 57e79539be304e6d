import Foundation
import Testing

@testable import LogStore

/// History goes only up to the lowest cursor of the authors that consume it, only once all of
/// them have registered; batch authors never hold it back; the manual cleaner follows the rule
/// of the automatic strategies.
@Suite("History cleanup")
struct HistoryCleanupTests {
    static func log(_ store: LogStore, _ count: Int = 1) async throws {
        for i in 0..<count { store.storeMessage(label: "app", level: .info, message: "m \(i)") }
        try await store.flush()
    }

    /// Logs a message on `writer` and waits until the author "worker" of `consumer` has merged
    /// it; returns the last seq it waited for.
    static func logAndWaitUntilMerged(_ writer: LogStore, by consumer: LogStore) async throws -> Int64 {
        try await log(writer)
        let last = try await lastHistorySequence(writer)
        try await waitFor { try await historyCursor("worker", in: consumer) ?? 0 >= last }
        return last
    }

    /// Registers a merge hook on `store` and waits until its cursor reaches what `writer` wrote.
    static func consume(_ store: LogStore, as author: String, upTo writer: LogStore) async throws {
        _ = await store.registerMergeHook { _ in .goOn }
        let last = try await lastHistorySequence(writer)
        try await waitFor { try await historyCursor(author, in: store) ?? 0 >= last }
    }

    @Test func noneKeepsEverythingAndTheCleanerDeletesOnlyWhatEveryAuthorConsumed() async throws {
        try await withTemporaryStoreURL { url in
            try await withAuthorStores(url, [
                historyConfiguration("server", allAuthors: ["worker"]), historyConfiguration("worker"),
            ]) { stores in
                let (server, worker) = (stores[0], stores[1])
                try await Self.log(server, 3)
                try await Self.consume(worker, as: "worker", upTo: server)
                #expect(try await historyRowCount(server) >= 3)
                // The server consumes nothing: its cursor (its registration) bounds the cleaner.
                let serverCursor = try #require(try await historyCursor("server", in: server))
                let report = try await server.historyCleaner().clean()
                #expect(report.cleanedThrough == serverCursor)
                let kept = try await server.read { db in
                    try db.rows("SELECT min(seq) FROM history").first?[0].integer
                }
                #expect(kept.map { $0 > serverCursor } ?? true)
            }
        }
    }

    @Test func aNamedAuthorGetsWhatWasKeptForItWhenItFirstOpens() async throws {
        try await withTemporaryStoreURL { url in
            // The two messages in one transaction, whatever the machine's speed: only the
            // flush commits.
            var configuration = historyConfiguration("server", allAuthors: ["worker"], batchAuthors: ["server"])
            configuration.isGroupCommitEnabled = false
            configuration.saveInterval = .seconds(600)
            let server = try await LogStore(storeURL: url, configuration: configuration)
            try await Self.log(server, 2)
            // The server's open named the worker: history is kept for it from then on.
            let before = try await server.historyCleaner().clean()
            #expect(before.deletedChanges == 0)
            let kept = try await lastHistorySequence(server)

            let worker = try await LogStore(storeURL: url, configuration: historyConfiguration("worker"))
            let batches = CallLog<HistoryBatch>()
            _ = await worker.registerMergeHook { batch in batches.append(batch); return .goOn }
            try await waitFor { try await historyCursor("worker", in: worker) ?? 0 >= kept }
            let delivered = batches.all.flatMap(\.transactions)
            #expect(delivered.allSatisfy { $0.author == "server" })
            #expect(delivered.flatMap(\.changes).contains { $0.entity == .message && $0.ids.count == 2 })
            let after = try await server.historyCleaner().clean()
            #expect(after.cleanedThrough ?? 0 >= kept)
            #expect(after.deletedChanges > 0)
            try await worker.close()
            try await server.close()
        }
    }

    @Test func theManualCleanerWithoutAConfigurationFollowsTheSameRule() async throws {
        try await withTemporaryStoreURL { url in
            let server = try await LogStore(
                storeURL: url, configuration: historyConfiguration("server", allAuthors: ["worker"]))
            try await Self.log(server, 3)
            try await server.close()
            // A maintenance tool without a history configuration: the rule is in the database,
            // so the worker, named but never opened, still holds its history.
            let tool = try await LogStore(storeURL: url, options: [])
            let report = try await tool.historyCleaner().clean()
            #expect(report.deletedChanges == 0)
            #expect(try await historyRowCount(tool) > 0)
            try await tool.close()
        }
    }

    @Test func aBatchAuthorNeverHoldsCleanupBack() async throws {
        try await withTemporaryStoreURL { url in
            let all: Set<String> = ["server", "worker", "nightly"]
            try await withAuthorStores(url, [
                historyConfiguration("server", allAuthors: all, batchAuthors: ["nightly"], cleanStrategy: .everyNMerges(1)),
                historyConfiguration("worker", allAuthors: all, batchAuthors: ["nightly"], cleanStrategy: .everyNMerges(1)),
                historyConfiguration("nightly", allAuthors: all, batchAuthors: ["nightly"]),
            ]) { stores in
                let (server, worker, nightly) = (stores[0], stores[1], stores[2])
                try await Self.log(nightly, 5)
                try await Self.consume(server, as: "server", upTo: nightly)
                try await Self.consume(worker, as: "worker", upTo: nightly)
                try await Self.log(nightly)
                // Each merge cleans; once both consumers have the nightly's changes, they go,
                // though the nightly merges nothing.
                let last = try await lastHistorySequence(nightly)
                try await waitFor { try await historyCursor("server", in: server) ?? 0 >= last }
                try await waitFor { try await historyCursor("worker", in: worker) ?? 0 >= last }
                try await worker.historyCleaner().clean()
                let left = try await server.read { db in
                    try db.rows("SELECT count(*) FROM history WHERE seq <= ?", [.integer(last)]).first?[0].integer
                }
                #expect(left == 0)
            }
        }
    }

    @Test func everyNMergesCleansAfterThatManyMerges() async throws {
        try await withTemporaryStoreURL { url in
            try await withAuthorStores(url, [
                historyConfiguration("server", batchAuthors: ["server"]),
                historyConfiguration("worker", cleanStrategy: .everyNMerges(2)),
            ]) { stores in
                let (server, worker) = (stores[0], stores[1])
                // The server only writes: the worker's cursor alone bounds cleanup.
                _ = await worker.registerMergeHook { _ in .goOn }
                let first = try await Self.logAndWaitUntilMerged(server, by: worker)
                let afterOne = try await worker.read { db in
                    try db.rows("SELECT last_cleanup, (SELECT count(*) FROM history WHERE seq <= ?) FROM history_state",
                        [.integer(first)]).first
                }
                #expect(afterOne?[0].real == nil)
                #expect(afterOne?[1].integer ?? 0 > 0)
                let second = try await Self.logAndWaitUntilMerged(server, by: worker)
                let afterTwo = try await worker.read { db in
                    try db.rows("SELECT last_cleanup, (SELECT count(*) FROM history WHERE seq <= ?) FROM history_state",
                        [.integer(second)]).first
                }
                #expect(afterTwo?[0].real != nil)
                #expect(afterTwo?[1].integer == 0)
            }
        }
    }

    @Test func byDurationCleansAfterAMergeOncePerInterval() async throws {
        try await withTemporaryStoreURL { url in
            try await withAuthorStores(url, [
                historyConfiguration("server", batchAuthors: ["server"]),
                historyConfiguration("worker", cleanStrategy: .byDuration(.seconds(3600))),
            ]) { stores in
                let (server, worker) = (stores[0], stores[1])
                _ = await worker.registerMergeHook { _ in .goOn }
                let first = try await Self.logAndWaitUntilMerged(server, by: worker)
                let cleaned = try await worker.read { db in
                    try db.rows("SELECT last_cleanup, cleaned_through FROM history_state").first
                }
                let lastCleanup = try #require(cleaned?[0].real)
                #expect(cleaned?[1].integer ?? 0 >= first)
                _ = try await Self.logAndWaitUntilMerged(server, by: worker)
                // Within the hour: the second merge does not clean again.
                let again = try await worker.read { db in
                    try db.rows("SELECT last_cleanup, (SELECT count(*) FROM history WHERE seq > ?) FROM history_state",
                        [.integer(first)]).first
                }
                #expect(again?[0].real == lastCleanup)
                #expect(again?[1].integer ?? 0 > 0)
            }
        }
    }

    @Test func aStrategyThatCannotWorkIsRefusedAtOpen() async throws {
        try await withTemporaryStoreURL { url in
            await #expect(throws: LogStoreError.invalidArgument("")) {
                _ = try await LogStore(storeURL: url, configuration: historyConfiguration("a", cleanStrategy: .everyNMerges(0)))
            }
            await #expect(throws: LogStoreError.invalidArgument("")) {
                _ = try await LogStore(storeURL: url, configuration: historyConfiguration(""))
            }
        }
    }
}
