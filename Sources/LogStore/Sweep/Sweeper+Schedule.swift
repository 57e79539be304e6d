import Foundation
import Synchronization

/// The sweep's schedule for a store opened with ``LogStore/Options/sweep``: the first sweep
/// ``LogStore/Configuration/sweepDelay`` after opening when the last one is older than
/// ``LogStore/Configuration/sweepInterval``, then one every interval while the store stays open,
/// and one at once whenever the writer sees the store reach 85 % of its size limit.
extension Sweeper {
    /// The loop that runs scheduled sweeps, and where triggers reach it.
    struct Schedule: Sendable {
        let loop: Task<Void, Never>
        let triggers: AsyncStream<LogStore.SweepReport.Trigger>.Continuation
    }

    func startSchedule() {
        // Triggers that arrive during a sweep collapse into one.
        let (triggers, continuation) = AsyncStream.makeStream(
            of: LogStore.SweepReport.Trigger.self, bufferingPolicy: .bufferingNewest(1))
        let clock = configuration.timeSource
        let firstWait = max(configuration.sweepDelay.seconds, timeUntilDue(now: clock.now()))
        let loop = Task(executorPreference: SweepExecutor.shared) { [weak self] in
            var timer = Self.timer(after: firstWait, clock: clock, triggers: continuation)
            for await trigger in triggers {
                timer.cancel()
                guard let self, !Task.isCancelled else { break }
                await self.sweepIfStillNeeded(trigger)
                timer = Self.timer(after: self.timeUntilDue(now: clock.now()), clock: clock, triggers: continuation)
            }
            timer.cancel()
        }
        schedule.withLock { $0 = Schedule(loop: loop, triggers: continuation) }
    }

    /// Asks for a sweep because the store reached 85 % of its size limit (from the writer).
    func requestSizeSweep() {
        schedule.withLock { _ = $0?.triggers.yield(.size) }
    }

    /// Ends the schedule (the store is closing). A sweep in progress stops at its next step.
    func stopSchedule() {
        let schedule = schedule.withLock { schedule in
            defer { schedule = nil }
            return schedule
        }
        schedule?.triggers.finish()
        schedule?.loop.cancel()
    }

    /// Seconds until the next scheduled sweep is due (0 when it is).
    private func timeUntilDue(now: Date) -> Double {
        guard let last = store.lastSweepDate else { return 0 }
        return max(0, last.timeIntervalSince(now) + configuration.sweepInterval.seconds)
    }

    private func sweepIfStillNeeded(_ trigger: LogStore.SweepReport.Trigger) async {
        do {
            switch trigger {
            case .size:
                // The sweep that just ran may have brought it back under the limit.
                guard try await judgedBytes() > configuration.sizeSweepThreshold else { return }
            case .schedule:
                guard timeUntilDue(now: configuration.timeSource.now()) <= 0 else { return }
            case .manual:
                return
            }
            _ = try await sweep(trigger)
        } catch LogStoreError.closed {
            // The store is closing.
        } catch {
            // Not on the sweep thread, which every store of the process shares: a hook that
            // blocks (logging under `.waitForSpace` while commits fail) must not stop them all.
            // A damaged store was reported once already, by the writer.
            if let onWriteError = configuration.onWriteError, !writer.isDamaged {
                let failure = LogStoreError(error)
                DispatchQueue.global().async { onWriteError(failure) }
            }
        }
    }

    private static func timer(
        after seconds: Double, clock: LogStore.TimeSource,
        triggers: AsyncStream<LogStore.SweepReport.Trigger>.Continuation
    ) -> Task<Void, Never> {
        Task(executorPreference: SweepExecutor.shared) {
            do {
                try await clock.sleep(.seconds(seconds))
            } catch {
                return
            }
            triggers.yield(.schedule)
        }
    }
}
