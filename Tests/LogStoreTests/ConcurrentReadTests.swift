import Dispatch
import Foundation
import LogStore
import Synchronization
import Testing

/// A store's reads run on the first of its read connections that is free: a long read (an
/// export, a long query) holds one, and the others' reads go on beside it.
@Suite("Reads beside a long read")
struct ConcurrentReadTests {
    /// How many held reads have begun, from the readers' threads.
    final class Started: Sendable {
        private let count = Atomic(0)
        func add() { count.add(1, ordering: .releasing) }
        var value: Int { count.load(ordering: .acquiring) }
    }

    /// A read that holds its connection until `release` is signalled (or `seconds` pass), with
    /// a snapshot of the store open; true when it was released, false when it timed out.
    static func heldRead(
        _ store: LogStore, started: Started, release: DispatchSemaphore, seconds: Double
    ) -> Task<Bool, any Error> {
        Task {
            try await store.read { db in
                _ = try db.rows("BEGIN")
                _ = try db.scalar("SELECT count(*) FROM messages")
                started.add()
                return release.wait(timeout: .now() + seconds) == .success
            }
        }
    }

    static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(TimeScale.scaled(30))  // a bound, not a wait
        while !condition(), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        try #require(condition())
    }

    @Test func shortReadsRunWhileALongReadHoldsItsConnection() async throws {
        try await withTemporaryStore { store, _ in
            store.storeMessage(label: "app", level: .info, message: "one")
            try await store.flush()
            let started = Started()
            let release = DispatchSemaphore(value: 0)
            // Released by this test, or by its own timeout if the reads below queue behind it: a
            // long one, since beside the whole suite 20 reads have taken more than 20 s (their
            // awaits queue for the cooperative pool), and only their order is the point.
            let long = Self.heldRead(store, started: started, release: release, seconds: TimeScale.scaled(120))
            try await Self.waitUntil { started.value == 1 }
            for _ in 0..<20 {
                let count = try await store.read { try $0.scalar("SELECT count(*) FROM messages")?.integer }
                #expect(count == 1)
            }
            release.signal()
            #expect(try await long.value, "the short reads waited for the long one to time out")
        }
    }

    @Test func aReadBeyondTheConnectionsRunsOnTheFirstOneFreed() async throws {
        try await withTemporaryStore { store, _ in
            let started = Started()
            let first = DispatchSemaphore(value: 0)
            let second = DispatchSemaphore(value: 0)
            // Both connections held, then a third read asked for.
            let held = [
                Self.heldRead(store, started: started, release: first, seconds: TimeScale.scaled(60)),
                Self.heldRead(store, started: started, release: second, seconds: TimeScale.scaled(60)),
            ]
            try await Self.waitUntil { started.value == 2 }
            let ran = Started()
            let waiting = Task {
                try await store.read { db in
                    ran.add()
                    return try db.scalar("SELECT 42")?.integer
                }
            }
            // It cannot run while both are held.
            try await Task.sleep(for: .milliseconds(100))
            #expect(ran.value == 0)
            // Whichever connection frees first takes it; the other read still holds its own.
            second.signal()
            #expect(try await waiting.value == 42)
            #expect(try await held[1].value)
            first.signal()
            #expect(try await held[0].value)
        }
    }

    /// Closing waits for the reads under way, and fails at once a read still waiting for a
    /// connection: it neither hangs nor waits for the long reads.
    @Test(.timeLimit(.minutes(TimeScale.minutes(2))))
    func aReadWaitingForAConnectionFailsAsClosedWhenTheStoreCloses() async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create])
            let started = Started()
            let release = DispatchSemaphore(value: 0)
            let held = [
                Self.heldRead(store, started: started, release: release, seconds: TimeScale.scaled(60)),
                Self.heldRead(store, started: started, release: release, seconds: TimeScale.scaled(60)),
            ]
            try await Self.waitUntil { started.value == 2 }
            let waiting = Task { try await store.read { try $0.scalar("SELECT 1")?.integer } }
            try await Task.sleep(for: .milliseconds(50))
            let closing = Task { try await store.close() }
            // Before the held reads end: had it waited for them, they would time out first.
            await #expect(throws: LogStoreError.closed) { try await waiting.value }
            release.signal()
            release.signal()
            for read in held { #expect(try await read.value) }
            try await closing.value
            await #expect(throws: LogStoreError.closed) { try await store.read { try $0.scalar("SELECT 1") } }
        }
    }
}
