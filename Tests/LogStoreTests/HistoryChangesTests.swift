import Foundation
import Testing

@testable import LogStore

/// `historyChanges()` hands the current author its unseen batches; a batch counts once the loop
/// asks for the next, and across a restart nothing consumed comes again.
@Suite("History changes sequence")
struct HistoryChangesTests {
    @Test func aBatchIsConsumedWhenTheNextIsAskedForAndNotDeliveredAgainAfterARestart() async throws {
        try await withTemporaryStoreURL { url in
            let server = try await LogStore(storeURL: url, configuration: historyConfiguration("server"))
            let worker = try await LogStore(storeURL: url, configuration: historyConfiguration("worker"))
            let start = try #require(try await historyCursor("worker", in: worker))
            let iterator = worker.historyChanges().makeAsyncIterator()
            server.storeMessage(label: "app", level: .info, message: "one")
            try await server.flush()
            let first = try await withinTimeLimit(seconds: 30) { await iterator.next() }
            let transaction = try #require(first?.transactions.first)
            #expect(transaction.author == "server")
            #expect(transaction.changes.map(\.entity) == [.message])
            // Not consumed until the loop asks again.
            #expect(try await historyCursor("worker", in: worker) == start)
            let second = Task { await iterator.next() }
            try await waitFor { try await historyCursor("worker", in: worker) ?? 0 >= transaction.lastSequence }
            second.cancel()
            _ = await second.value
            try await worker.close()

            let reopened = try await LogStore(storeURL: url, configuration: historyConfiguration("worker"))
            server.storeMessage(label: "app", level: .info, message: "two")
            try await server.flush()
            let again = reopened.historyChanges().makeAsyncIterator()
            let next = try await withinTimeLimit(seconds: 30) { await again.next() }
            #expect(next?.transactions.map(\.id).contains(transaction.id) == false)
            #expect(next?.transactions.count == 1)
            try await reopened.close()
            try await server.close()
        }
    }

    @Test func aBatchLeftUnfinishedComesAgain() async throws {
        try await withTemporaryStoreURL { url in
            try await withAuthorStores(url, [historyConfiguration("server"), historyConfiguration("worker")]) { stores in
                let (server, worker) = (stores[0], stores[1])
                server.storeMessage(label: "app", level: .info, message: "one")
                try await server.flush()
                let taken = try await withinTimeLimit(seconds: 30) { () -> Int64? in
                    for await batch in worker.historyChanges() { return batch.transactions.first?.id }
                    return nil
                }
                let again = try await withinTimeLimit(seconds: 30) { () -> Int64? in
                    for await batch in worker.historyChanges() { return batch.transactions.first?.id }
                    return nil
                }
                #expect(taken != nil)
                #expect(taken == again)
            }
        }
    }

    @Test func theSequenceEndsWhenTheStoreCloses() async throws {
        try await withTemporaryStore(configuration: historyConfiguration("solo")) { store, _ in
            let iterator = store.historyChanges().makeAsyncIterator()
            let waiting = Task { await iterator.next() }
            try await store.close()
            let end = try await withinTimeLimit(seconds: 30) { await waiting.value }
            #expect(end == nil)
        }
    }
}
