import Foundation
import Testing

@testable import LogStore

/// Observers see the other authors' changes, one call per transaction, entity and operation,
/// in commit order; the observers of one key in the order they registered.
@Suite("History observers")
struct HistoryObserverTests {
    static let url = URL(string: "https://api.example.com/items")!

    struct Call: Sendable, Equatable {
        let observer: String
        let transaction: Int64
        let author: String
        let entity: HistoryEntity
        let operation: HistoryOperation
        let count: Int
    }

    static func observe(
        _ store: LogStore, _ name: String, _ log: CallLog<Call>, entity: HistoryEntity? = nil,
        operation: HistoryOperation? = nil
    ) async -> UUID {
        await store.registerObserver(entity: entity, operation: operation) { transaction in
            for change in transaction.changes {
                log.append(Call(
                    observer: name, transaction: transaction.id, author: transaction.author, entity: change.entity,
                    operation: change.operation, count: change.ids.count))
            }
        }
    }

    @Test func observersSeeTheOtherAuthorsChangesGroupedAndInOrder() async throws {
        // Only flush() commits: each group of events is one transaction however busy the machine.
        var server = historyConfiguration("server")
        server.saveInterval = .seconds(600)
        server.isGroupCommitEnabled = false
        try await withTemporaryStoreURL { url in
            try await withAuthorStores(url, [server, historyConfiguration("worker")]) { stores in
                let (server, worker) = (stores[0], stores[1])
                let log = CallLog<Call>()
                _ = await Self.observe(worker, "first", log, entity: .message, operation: .insert)
                _ = await Self.observe(worker, "tasks", log, entity: .task, operation: .insert)
                _ = await Self.observe(worker, "second", log, entity: .message, operation: .insert)
                for i in 0..<5 { server.storeMessage(label: "app", level: .info, message: "m \(i)") }
                server.storeRequest(
                    NetworkRequest(url: Self.url), response: NetworkResponse(url: Self.url, statusCode: 200), error: nil,
                    data: nil)
                try await server.flush()
                for i in 0..<3 { server.storeMessage(label: "app", level: .info, message: "n \(i)") }
                try await server.flush()
                // The worker's own message is not delivered to it.
                worker.storeMessage(label: "worker", level: .info, message: "own")
                try await worker.flush()

                let calls = try await log.wait(for: 5)
                #expect(calls.allSatisfy { $0.author == "server" })
                #expect(calls.map(\.observer) == ["first", "second", "tasks", "first", "second"])
                #expect(calls.map(\.count) == [6, 6, 1, 3, 3])
                #expect(calls[0].transaction == calls[2].transaction)
                #expect(calls[3].transaction > calls[0].transaction)
                // Everything the server wrote is consumed; the worker's cursor covers it.
                let last = try await lastHistorySequence(server)
                try await waitFor { try await historyCursor("worker", in: worker) ?? 0 >= last }
                #expect(log.count == 5)
            }
        }
    }

    @Test func anObserverOfEverythingSeesEachChangeOnce() async throws {
        try await withTemporaryStoreURL { url in
            try await withAuthorStores(url, [historyConfiguration("server"), historyConfiguration("worker")]) { stores in
                let (server, worker) = (stores[0], stores[1])
                let log = CallLog<Call>()
                _ = await Self.observe(worker, "all", log)
                server.storeMessage(label: "app", level: .info, message: "one")
                try await server.flush()
                try await server.removeAll()
                let calls = try await log.wait(for: 2)
                let last = try await lastHistorySequence(server)
                try await waitFor { try await historyCursor("worker", in: worker) ?? 0 >= last }
                // The removal also deleted the worker's session row (it puts it back with its
                // next batch): three changes, each once.
                let keys = log.all.map { "\($0.transaction) \($0.entity) \($0.operation)" }
                #expect(Set(keys).count == keys.count)
                #expect(keys.count == 3)
                #expect(calls.prefix(2).map { [$0.entity, $0.operation] as [AnyHashable] } == [
                    [HistoryEntity.message, HistoryOperation.insert], [HistoryEntity.message, HistoryOperation.delete],
                ])
            }
        }
    }

    @Test func ownChangesAreDeliveredWhenAsked() async throws {
        try await withTemporaryStore(configuration: historyConfiguration("solo", includesOwnChanges: true)) { store, _ in
            let log = CallLog<Call>()
            _ = await Self.observe(store, "own", log, entity: .message)
            store.storeMessage(label: "app", level: .info, message: "mine")
            try await store.flush()
            let calls = try await log.wait(for: 1)
            #expect(calls.first?.author == "solo")
            #expect(calls.first?.count == 1)
        }
    }

    @Test func aRemovedObserverIsNotCalledAgain() async throws {
        try await withTemporaryStoreURL { url in
            try await withAuthorStores(url, [historyConfiguration("server"), historyConfiguration("worker")]) { stores in
                let (server, worker) = (stores[0], stores[1])
                let removed = CallLog<Call>()
                let kept = CallLog<Call>()
                let id = await Self.observe(worker, "removed", removed, entity: .message)
                _ = await Self.observe(worker, "kept", kept, entity: .message)
                server.storeMessage(label: "app", level: .info, message: "one")
                try await server.flush()
                try await kept.wait(for: 1)
                await worker.removeObserver(id: id)
                server.storeMessage(label: "app", level: .info, message: "two")
                try await server.flush()
                try await kept.wait(for: 2)
                #expect(removed.count == 1)
                await worker.removeAllObservers()
            }
        }
    }
}
