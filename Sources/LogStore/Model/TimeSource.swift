public import Foundation

extension LogStore {
    /// Where the store reads the time for the sweep's age cut-off and schedule and the history
    /// merge's cleanup schedule, and how it waits between sweeps. The default is the system clock; tests (or a simulation) can run the
    /// schedule faster, or move "now", without sleeping through real hours.
    ///
    /// ```swift
    /// var configuration = LogStore.Configuration()
    /// let start = Date()
    /// // A store that lives a day per real second.
    /// configuration.timeSource = LogStore.TimeSource(
    ///     now: { start.addingTimeInterval(Date().timeIntervalSince(start) * 86_400) },
    ///     sleep: { try await Task.sleep(for: $0 / 86_400) })
    /// ```
    public struct TimeSource: Sendable {
        /// The current time.
        public var now: @Sendable () -> Date
        /// Waits for a duration of this time source (throws when the waiting task is cancelled).
        public var sleep: @Sendable (Duration) async throws -> Void
        /// What the store's timers measure and wait with: the system's for a time source made
        /// from closures (they move dates and the sweep's schedule, not the writer's thread).
        var timer: StoreTimer = .system

        /// A time source reading the time with `now` and waiting with `sleep`.
        public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void) {
            self.now = now
            self.sleep = sleep
        }

        /// A time source whose timers run on `timer` as well (a test's hand-advanced clock).
        init(
            now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void,
            timer: StoreTimer
        ) {
            self.now = now
            self.sleep = sleep
            self.timer = timer
        }

        /// The system clock and `Task.sleep`.
        public static let system = TimeSource(now: { Date() }, sleep: { try await Task.sleep(for: $0) })
    }
}
