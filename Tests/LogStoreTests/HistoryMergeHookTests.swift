import Foundation
import Synchronization
import Testing

@testable import LogStore

/// Merge hooks run as an ordered chain (`before:` places one), `.finish` ends it, and a hook
/// that throws leaves the cursor where it was, so the batch comes again.
@Suite("History merge hooks")
struct HistoryMergeHookTests {
    static func serverAndWorker(_ url: URL, _ body: (LogStore, LogStore) async throws -> Void) async throws {
        try await withAuthorStores(url, [historyConfiguration("server"), historyConfiguration("worker")]) { stores in
            try await body(stores[0], stores[1])
        }
    }

    @Test func theChainRunsInOrderWithBeforeAndStopsAtFinish() async throws {
        try await withTemporaryStoreURL { url in
            try await Self.serverAndWorker(url) { server, worker in
                let log = CallLog<String>()
                let first = await worker.registerMergeHook { _ in log.append("first"); return .goOn }
                _ = await worker.registerMergeHook { _ in log.append("last"); return .finish }
                _ = await worker.registerMergeHook { _ in log.append("never"); return .goOn }
                _ = await worker.registerMergeHook(before: first) { _ in log.append("before first"); return .goOn }
                server.storeMessage(label: "app", level: .info, message: "one")
                try await server.flush()
                let last = try await lastHistorySequence(server)
                try await waitFor { try await historyCursor("worker", in: worker) ?? 0 >= last }
                #expect(log.all == ["before first", "first", "last"])
            }
        }
    }

    @Test func aThrowingHookLeavesTheCursorAndGetsTheBatchAgain() async throws {
        struct Refused: Error {}
        try await withTemporaryStoreURL { url in
            try await Self.serverAndWorker(url) { server, worker in
                let start = try #require(try await historyCursor("worker", in: worker))
                let batches = CallLog<[Int64]>()
                let fails = Mutex(true)
                let id = await worker.registerMergeHook { batch in
                    batches.append(batch.transactions.map(\.id))
                    if fails.withLock({ $0 }) { throw Refused() }
                    return .goOn
                }
                server.storeMessage(label: "app", level: .info, message: "one")
                try await server.flush()
                try await batches.wait(for: 1)
                #expect(try await historyCursor("worker", in: worker) == start)
                fails.withLock { $0 = false }
                let delivered = try await batches.wait(for: 2)
                #expect(delivered[0] == delivered[1])
                #expect(delivered[0].count == 1)
                let last = try await lastHistorySequence(server)
                try await waitFor { try await historyCursor("worker", in: worker) ?? 0 >= last }
                await worker.removeMergeHook(id: id)
            }
        }
    }

    /// Regression: a hook registered while the merge loop waited for a commit (its consumers
    /// had all gone) was not called with what was already committed until the next commit.
    @Test func aHookRegisteredWhileTheLoopIdlesGetsWhatIsAlreadyCommitted() async throws {
        try await withTemporaryStoreURL { url in
            try await Self.serverAndWorker(url) { server, worker in
                let first = await worker.registerMergeHook { _ in .goOn }
                server.storeMessage(label: "app", level: .info, message: "one")
                try await server.flush()
                let one = try await lastHistorySequence(server)
                try await waitFor { try await historyCursor("worker", in: worker) ?? 0 >= one }
                await worker.removeMergeHook(id: first)
                server.storeMessage(label: "app", level: .info, message: "two")
                try await server.flush()
                // The state the bug needed: the loop noticed the commit, found no consumer and
                // ended, so the next consumer has to start it again.
                try await waitFor { worker.historyMerger?.isLoopRunning == false }
                let batches = CallLog<HistoryBatch>()
                _ = await worker.registerMergeHook { batch in batches.append(batch); return .goOn }
                let delivered = try await batches.wait(for: 1, seconds: 10)
                #expect(delivered.first?.transactions.first?.author == "server")
            }
        }
    }

    /// Regression: a store's merge loop kept its cursor in memory, so what another store of the
    /// same author (another process) had consumed meanwhile was delivered to it again.
    @Test func whatAnotherStoreOfTheSameAuthorConsumedIsNotDeliveredAgain() async throws {
        try await withTemporaryStoreURL { url in
            try await withAuthorStores(url, [
                historyConfiguration("server"), historyConfiguration("worker"), historyConfiguration("worker"),
            ]) { stores in
                let (server, first, second) = (stores[0], stores[1], stores[2])
                // The second store's loop runs, and idles once its only hook is gone.
                await second.removeMergeHook(id: await second.registerMergeHook { _ in .goOn })
                _ = await first.registerMergeHook { _ in .goOn }
                server.storeMessage(label: "app", level: .info, message: "one")
                try await server.flush()
                let one = try await lastHistorySequence(server)
                try await waitFor { try await historyCursor("worker", in: first) ?? 0 >= one }
                let batches = CallLog<[Int64]>()
                _ = await second.registerMergeHook { batch in batches.append(batch.transactions.map(\.id)); return .goOn }
                server.storeMessage(label: "app", level: .info, message: "two")
                try await server.flush()
                let two = try await lastHistorySequence(server)
                try await waitFor { try await historyCursor("worker", in: second) ?? 0 >= two }
                #expect(batches.all.joined().allSatisfy { $0 > one }, "delivered again: \(batches.all)")
            }
        }
    }
}
