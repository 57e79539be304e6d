import Foundation
import Testing

@testable import LogStore

/// Every timer of a store runs on its one clock (``LogStore/TimeSource``): a test advances the
/// clock past a timeout instead of sleeping through it, and a timer that read the system clock
/// instead would make these tests wait for real hours (and fail at their bound).
@Suite("The store's clock")
struct StoreClockTests {
    static func configuration(_ clock: ManualClock) -> LogStore.Configuration {
        var configuration = LogStore.Configuration()
        configuration.timeSource = clock.timeSource
        return configuration
    }

    static func committedMessages(_ store: LogStore) async throws -> Int64 {
        try await store.read { try $0.rows("SELECT count(*) FROM messages").first?[0].integer ?? 0 }
    }

    @Test func theSaveIntervalRunsOnTheClock() async throws {
        let clock = ManualClock()
        var configuration = Self.configuration(clock)
        configuration.saveInterval = .seconds(3_600)
        configuration.isGroupCommitEnabled = false
        try await withTemporaryStore(configuration: configuration) { store, _ in
            store.storeMessage(label: "app", level: .info, message: "one")
            // The writer's wait began (a wait begun after an advance would not see it).
            try await clock.waitForWaits()
            clock.advance(by: .seconds(3_599))
            #expect(try await Self.committedMessages(store) == 0)
            clock.advance(by: .seconds(2))
            try await waitFor(seconds: 30) { try await Self.committedMessages(store) == 1 }
        }
    }

    @Test func theScheduledSweepRunsOnTheClock() async throws {
        let clock = ManualClock()
        var configuration = Self.configuration(clock)
        configuration.maxAge = .seconds(3_600)
        configuration.sweepDelay = .seconds(600)
        try await withTemporaryStore(options: [.create, .sweep], configuration: configuration) { store, _ in
            store.storeMessage(
                createdAt: clock.now.addingTimeInterval(-7_200), label: "app", level: .info, message: "old")
            store.storeMessage(createdAt: clock.now, label: "app", level: .info, message: "new")
            try await store.flush()
            #expect(try await store.info().lastSweep == nil)
            // The writer waits, and so does the schedule (its first sleep, the sweep delay).
            try await clock.waitForWaits(2)
            clock.advance(by: .seconds(601))
            try await waitFor(seconds: 30) { try await store.info().lastSweep != nil }
            let sweep = try #require(try await store.info().lastSweep)
            #expect(sweep.trigger == .schedule)
            #expect(sweep.date == clock.now)
            #expect(try await allMessages(store).map(\.text) == ["new"])
        }
    }

    @Test func aTaskThatNeverCompletesIsForgottenOnTheClock() async throws {
        let clock = ManualClock()
        try await withTemporaryStore(configuration: Self.configuration(clock)) { store, _ in
            let logger = NetworkLogger(store: store, openTaskTimeout: .seconds(60))
            logger.logTaskCreated(taskID: UUID(), request: NetworkRequest(url: URL(string: "https://a.example/a")))
            clock.advance(by: .seconds(61))
            logger.logTaskCreated(taskID: UUID(), request: NetworkRequest(url: URL(string: "https://a.example/b")))
            #expect(logger.evictedTaskCount == 1)
        }
    }

    @Test func closingEndsWaitsTheClockWouldNeverEnd() async throws {
        // Nothing advances the clock: the writer's save interval, the schedule's sleep and the
        // merge loop's retry (its hook throws) must all end when the store closes.
        struct HookFailure: Error {}
        let clock = ManualClock()
        var configuration = historyConfiguration("app", includesOwnChanges: true)
        configuration.timeSource = clock.timeSource
        configuration.saveInterval = .seconds(3_600)
        let closing = configuration
        // A bound for a hang, not a wait: alone this takes 0.05 s, beside the whole suite up to a
        // minute (its awaits queue for the cooperative pool's two threads).
        try await withinTimeLimit(seconds: 180) {
            try await withTemporaryStore(options: [.create, .sweep], configuration: closing) { store, _ in
                store.storeMessage(label: "app", level: .info, message: "kept at close")
                try await store.flush()
                let calls = CallLog<Int>()
                _ = await store.registerMergeHook { _ in
                    calls.append(1)
                    throw HookFailure()
                }
                try await calls.wait(for: 1)
                // The writer, the schedule and the merge loop's retry all wait on the clock.
                try await clock.waitForWaits(3)
                #expect(try await Self.committedMessages(store) == 1)
            }
        }
        // Every wait ended with the close (woken or cancelled), none by the clock.
        #expect(clock.pendingWaits == 0)
    }
}
