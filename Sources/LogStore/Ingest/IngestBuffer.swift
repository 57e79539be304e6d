import Synchronization

/// The bounded, lock-protected queue between logging call sites and the writer.
///
/// Producers append under a `Mutex` (tens of nanoseconds uncontended); the writer swaps the
/// whole array out for a recycled one, so no append ever waits for I/O and arrays, once grown,
/// never reallocate under the lock (PERF-NOTES.md: growth copies were the p99 cost).
///
/// When ``capacity`` events are waiting, ``LogStore/OverflowPolicy/dropLowestLevelsFirst`` evicts
/// the oldest waiting event of the lowest level present by leaving a hole (`nil`) in its slot;
/// holes are squeezed out when they would make the array outgrow twice the capacity, so the
/// eviction stays amortised O(1).
final class IngestBuffer: Sendable {
    /// The most events that may wait.
    let capacity: Int
    let policy: LogStore.OverflowPolicy
    /// A waiting count that makes the writer commit before its interval ends.
    let wakeThreshold: Int
    private let state: Mutex<State>

    struct State: ~Copyable {
        var events: [LogStore.Event?]
        var spare: [LogStore.Event?]
        /// Events waiting (holes excluded).
        var live = 0
        var liveByLevel = [Int](repeating: 0, count: LogStore.Level.allCases.count)
        /// Per level, the slot where the search for the oldest event of that level resumes.
        var evictionCursor = [Int](repeating: 0, count: LogStore.Level.allCases.count)
        /// Accepted events since the store opened: the ticket ``LogStore/flush()`` waits for.
        var accepted: UInt64 = 0
        var dropped: UInt64 = 0
        var isClosed = false
    }

    /// What happened to an appended event.
    enum AppendResult {
        /// Queued with this ticket; `wakeWriter` when the writer should start a batch now.
        case accepted(ticket: UInt64, wakeWriter: Bool)
        /// Dropped by the overflow policy (possibly another event was evicted instead, in which
        /// case this one was accepted: see `accepted`).
        case dropped
        /// Full, and the policy is to wait.
        case full
        /// The store is closed.
        case closed
    }

    /// A batch taken by the writer.
    struct Batch {
        var events: [LogStore.Event?]
        /// Every ticket up to this one is in this batch or an earlier one.
        var lastTicket: UInt64
    }

    init(capacity: Int, policy: LogStore.OverflowPolicy) {
        self.capacity = max(1, capacity)
        self.policy = policy
        self.wakeThreshold = max(1, min(4096, self.capacity / 4))
        let reserved = min(self.capacity, 16_384)
        var events: [LogStore.Event?] = []
        events.reserveCapacity(reserved)
        var spare: [LogStore.Event?] = []
        spare.reserveCapacity(reserved)
        state = Mutex(State(events: events, spare: spare))
    }

    func append(_ event: LogStore.Event) -> AppendResult {
        let level = Int(event.level.rawValue)
        return state.withLock { state -> AppendResult in
            if state.isClosed { return .closed }
            if state.live >= capacity {
                if policy == .waitForSpace { return .full }
                guard Self.evictOldest(atOrBelow: level, in: &state) else {
                    state.dropped += 1
                    return .dropped
                }
                if state.events.count >= 2 * capacity {
                    Self.removeHoles(in: &state)
                }
            }
            state.events.append(event)
            state.live += 1
            state.liveByLevel[level] += 1
            state.accepted += 1
            return .accepted(ticket: state.accepted, wakeWriter: state.live == wakeThreshold)
        }
    }

    /// Evicts the oldest waiting event of the lowest level present, if that level is at most
    /// `level`; returns whether it did.
    private static func evictOldest(atOrBelow level: Int, in state: inout State) -> Bool {
        guard let lowest = state.liveByLevel.firstIndex(where: { $0 > 0 }), lowest <= level else {
            return false
        }
        var index = state.evictionCursor[lowest]
        while index < state.events.count {
            if let event = state.events[index], Int(event.level.rawValue) == lowest {
                state.events[index] = nil
                state.evictionCursor[lowest] = index + 1
                state.live -= 1
                state.liveByLevel[lowest] -= 1
                state.dropped += 1
                return true
            }
            index += 1
        }
        return false
    }

    private static func removeHoles(in state: inout State) {
        state.events.removeAll(where: { $0 == nil })
        for level in state.evictionCursor.indices { state.evictionCursor[level] = 0 }
    }

    /// Takes everything waiting, or `nil` when nothing is.
    func take() -> Batch? {
        state.withLock { state -> Batch? in
            guard state.live > 0 else { return nil }
            var events = state.spare
            state.spare = []
            swap(&events, &state.events)
            state.live = 0
            for level in state.liveByLevel.indices {
                state.liveByLevel[level] = 0
                state.evictionCursor[level] = 0
            }
            return Batch(events: events, lastTicket: state.accepted)
        }
    }

    /// Hands an emptied batch array back so its capacity is reused.
    func recycle(_ events: inout [LogStore.Event?]) {
        events.removeAll(keepingCapacity: true)
        let array = events
        events = []
        state.withLock { state in
            if state.spare.capacity < array.capacity { state.spare = array }
        }
    }

    /// The ticket of the newest accepted event.
    var lastTicket: UInt64 { state.withLock { $0.accepted } }

    /// Events waiting right now.
    var pendingCount: Int { state.withLock { $0.live } }

    /// Events dropped since the store opened.
    var droppedCount: UInt64 { state.withLock { $0.dropped } }

    /// Refuses further events; those already waiting are still taken.
    func close() {
        state.withLock { $0.isClosed = true }
    }
}
