import Dispatch
import Foundation
import LogStore
import Testing

/// `log(...)`, the async form of `storeMessage`: where that blocks its thread, it suspends.
@Suite("Async logging")
struct AsyncLoggingTests {
    @Test func loggersWaitingForSpaceLeaveTheThreadsFree() async throws {
        let held = HeldWriter()
        var configuration = LogStore.Configuration()
        configuration.maxPendingEvents = 4
        configuration.overflowPolicy = .waitForSpace
        configuration.saveInterval = .milliseconds(10)
        held.hold(&configuration)
        let loggers = 8
        let perLogger = 50
        try await withTemporaryStore(configuration: configuration) { store, _ in
            await store.log(label: "first", level: .info, message: "taken, then held")
            try await held.waitUntilHeld()
            // Should the loggers block the cooperative threads after all, the writer is let go
            // from a thread of its own, so the test ends (and fails on the timer below).
            let releasedByFallback = Recorder(false)
            DispatchQueue.global().asyncAfter(deadline: .now() + TimeScale.scaled(10)) {
                releasedByFallback.update { $0 = true }
                held.release()
            }
            let started = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for logger in 0..<loggers {
                    group.addTask {
                        for index in 0..<perLogger {
                            await store.log(label: "logger \(logger)", level: .info, message: "\(index)")
                        }
                    }
                }
                // The buffer is full and the writer held: every logger waits. A timer on the
                // same pool must still fire while the writer is held (blocked loggers would hold
                // every thread of the pool until the fallback lets the writer go).
                let timerStart = ContinuousClock.now
                try await Task.sleep(for: .milliseconds(50))
                let timer = ContinuousClock.now - timerStart
                #expect(!releasedByFallback.current, "a 50 ms timer took \(timer): the loggers held the threads")
                held.release()
                try await group.waitForAll()
            }
            // A bound, not a wait: 400 messages four at a time through 10 ms commits, on two
            // cores the whole suite shares (it passes in well under a second alone).
            #expect(ContinuousClock.now - started < .seconds(TimeScale.scaled(60)))
            try await store.flush()
            #expect(try await store.info().messageCount == 1 + loggers * perLogger)
            #expect(try await store.info().droppedEventCount == 0)
        }
    }

    @Test func onASynchronousStoreItReturnsOnceCommitted() async throws {
        try await withTemporaryStore(options: [.create, .synchronous]) { store, _ throws in
            for index in 0..<3 {
                await store.log(label: "sync", level: .info, message: "m\(index)")
                // Committed already: a reader sees it without a flush.
                #expect(try await store.info().messageCount == index + 1)
            }
        }
    }
}
