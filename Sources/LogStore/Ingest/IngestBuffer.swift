import Synchronization

/// The bounded, lock-protected queue between logging call sites and the writer.
///
/// Producers append under a `Mutex` (tens of nanoseconds uncontended); the writer swaps the
/// whole array out for a recycled one, so no append ever waits for I/O and arrays, once grown,
/// never reallocate under the lock (growth copies were the p99 cost: the benchmark method article).
///
/// The bound is on every event the store holds, counted and in bytes (estimated): events
/// waiting, events the writer took and is preparing or committing (*in flight*), events whose
/// commit failed, put back at the head (``putBack(_:releasing:)``) so a failing disk cannot
/// make the writer hold more than the bound, and committed events until the background has
/// freed them (``retire(_:)``), so a fast producer cannot refill the bound while the last batch
/// is still in memory. When the next event would pass the bound,
/// ``LogStore/OverflowPolicy/dropLowestLevelsFirst`` evicts the oldest waiting events of the
/// lowest levels present (put-back events first: they are the oldest) by leaving holes (`nil`)
/// in their slots; holes are squeezed out when they would make the array outgrow twice the
/// capacity, so the eviction stays amortised O(1). In-flight events cannot be evicted: when
/// only they fill the bound, the new event is dropped.
final class IngestBuffer: Sendable {
    /// The most events that may be pending.
    let capacity: Int
    /// The most bytes (``LogStore/Event/estimatedSize``) that may be pending. An event larger
    /// than this on its own is accepted only when nothing else is pending.
    let byteCapacity: Int
    let policy: LogStore.OverflowPolicy
    /// A waiting count that makes the writer commit before its interval ends.
    let wakeThreshold: Int
    /// Waiting bytes that make the writer commit before its interval ends.
    let byteWakeThreshold: Int
    /// Half the wake thresholds: crossed while the writer commits, the next batch starts being
    /// prepared, so under load it is ready when the commit ends (see ``StoreWriter``'s pipeline).
    let prepareThreshold: Int
    let bytePrepareThreshold: Int
    private let state: Mutex<State>

    struct State: ~Copyable {
        /// Events whose commit failed, put back for the next batch, already prepared (redacted,
        /// through `willHandleEvent`); older than every event of ``events``.
        var retry: [LogStore.Event?] = []
        var events: [LogStore.Event?]
        var spare: [LogStore.Event?]
        /// Events waiting in ``retry`` and ``events`` (holes excluded).
        var live = 0
        var liveByLevel = [Int](repeating: 0, count: LogStore.Level.allCases.count)
        /// Bytes waiting, in all and per level.
        var bytes = 0
        var bytesByLevel = [Int](repeating: 0, count: LogStore.Level.allCases.count)
        /// Taken by the writer, not yet committed nor put back.
        var inFlight = 0
        var inFlightBytes = 0
        /// Committed events still held in memory until the background has freed them
        /// (``retire(_:)``): not pending, but counted against the bound, which is then on what
        /// the store holds, not only on what it has yet to write.
        var retired = 0
        var retiredBytes = 0
        /// Per level, the slot (``retry`` then ``events``) where the search for the oldest event
        /// of that level resumes.
        var evictionCursor = [Int](repeating: 0, count: LogStore.Level.allCases.count)
        /// Accepted events since the store opened: the ticket ``LogStore/flush()`` waits for.
        var accepted: UInt64 = 0
        var dropped: UInt64 = 0
        var isClosed = false
        /// The store cannot take events any more (``dropEverything()``): each is dropped, counted.
        var dropsEverything = false
        /// The writer waits with nothing to commit and wants the next event to wake it (group
        /// commit: ``markWriterIdle()``); cleared by the event that does.
        var writerIsIdle = false

        var pending: Int { live + inFlight }
        var pendingBytes: Int { bytes + inFlightBytes }
        var held: Int { pending + retired }
        var heldBytes: Int { pendingBytes + retiredBytes }
    }

    /// What happened to an appended event.
    enum AppendResult {
        /// Queued with this ticket; `wakeWriter` when the writer should start a batch now,
        /// `prepareNext` when the next batch may start being prepared.
        case accepted(ticket: UInt64, wakeWriter: Bool, prepareNext: Bool)
        /// Dropped by the overflow policy (possibly another event was evicted instead, in which
        /// case this one was accepted: see `accepted`).
        case dropped
        /// Full, and the policy is to wait.
        case full
        /// The store is closed.
        case closed
    }

    /// A batch taken by the writer. Its events stay counted as pending (in flight) until the
    /// writer calls ``release(_:)`` or ``putBack(_:releasing:)`` with ``taken``.
    struct Batch {
        /// Events put back after a failed commit, already prepared: they go first.
        var retry: [LogStore.Event?]
        var events: [LogStore.Event?]
        /// Every ticket up to this one is in this batch or an earlier one.
        var lastTicket: UInt64
        var taken: Taken
    }

    /// What one take moved in flight, to hand back exactly once.
    struct Taken: Sendable {
        var count = 0
        var bytes = 0

        static func + (lhs: Taken, rhs: Taken) -> Taken {
            Taken(count: lhs.count + rhs.count, bytes: lhs.bytes + rhs.bytes)
        }
    }

    init(capacity: Int, byteCapacity: Int = .max, policy: LogStore.OverflowPolicy) {
        self.capacity = max(1, capacity)
        self.byteCapacity = max(1, byteCapacity)
        self.policy = policy
        // Half the bound, and no more than 3,072 events: a batch in flight and the next filling
        // fit in the bound, and a transaction of a few thousand events amortises what each one
        // costs (its commit, the tasks' URL index statement). A quarter of the bound made the
        // default's batches half as large when the bound went to 6,144: network tasks then cost
        // a fifth more CPU.
        self.wakeThreshold = max(1, min(3_072, self.capacity / 2))
        self.byteWakeThreshold = max(1, self.byteCapacity / 4)
        self.prepareThreshold = max(1, wakeThreshold / 2)
        self.bytePrepareThreshold = max(1, byteWakeThreshold / 2)
        let reserved = min(self.capacity, 16_384)
        var events: [LogStore.Event?] = []
        events.reserveCapacity(reserved)
        var spare: [LogStore.Event?] = []
        spare.reserveCapacity(reserved)
        state = Mutex(State(events: events, spare: spare))
    }

    func append(_ event: LogStore.Event) -> AppendResult {
        append(event, level: event.level, size: event.estimatedSize)
    }

    /// ``append(_:)`` with the event's ``LogStore/Event/level`` and
    /// ``LogStore/Event/estimatedSize`` given: computed from a logging call's arguments, they
    /// spare copying the message's fields out of the event's box.
    func append(_ event: LogStore.Event, level: LogStore.Level, size: Int) -> AppendResult {
        let level = Int(level.rawValue)
        return state.withLock { state -> AppendResult in
            if state.isClosed { return .closed }
            if state.dropsEverything {
                state.dropped += 1
                return .dropped
            }
            let needed = neededRoom(for: size, in: state)
            if needed.count > 0 || needed.bytes > 0 {
                if policy == .waitForSpace { return .full }
                guard Self.evict(needed, atOrBelow: level, in: &state) else {
                    state.dropped += 1
                    return .dropped
                }
                if state.events.count >= 2 * capacity {
                    Self.removeHoles(in: &state)
                }
            }
            let bytesBefore = state.bytes
            state.events.append(event)
            state.live += 1
            state.liveByLevel[level] += 1
            state.bytes += size
            state.bytesByLevel[level] += size
            state.accepted += 1
            var wakeWriter = state.live == wakeThreshold
                || (bytesBefore < byteWakeThreshold && state.bytes >= byteWakeThreshold)
            if state.writerIsIdle {
                // Group commit: the first event after the writer went idle wakes it, once.
                state.writerIsIdle = false
                wakeWriter = true
            }
            let prepareNext = state.live == prepareThreshold
                || (bytesBefore < bytePrepareThreshold && state.bytes >= bytePrepareThreshold)
            return .accepted(ticket: state.accepted, wakeWriter: wakeWriter, prepareNext: prepareNext)
        }
    }

    /// The events and bytes to free before an event of `size` bytes fits (zero when it does).
    private func neededRoom(for size: Int, in state: borrowing State) -> Taken {
        let count = state.held + 1 - capacity
        // An event larger than the whole bound still gets in when nothing else waits.
        let bytes = state.pending == 0 ? 0 : state.heldBytes + size - byteCapacity
        return Taken(count: max(0, count), bytes: max(0, bytes))
    }

    /// Evicts the oldest waiting events of the lowest levels present, all at most `level`,
    /// until `needed` is freed; evicts nothing and returns `false` when that is impossible.
    private static func evict(_ needed: Taken, atOrBelow level: Int, in state: inout State) -> Bool {
        let evictableCount = state.liveByLevel[0...level].reduce(0, +)
        let evictableBytes = state.bytesByLevel[0...level].reduce(0, +)
        guard evictableCount >= needed.count, evictableBytes >= needed.bytes else { return false }
        var freed = Taken()
        while freed.count < needed.count || freed.bytes < needed.bytes {
            guard let size = evictOldest(in: &state) else { return false }
            freed.count += 1
            freed.bytes += size
        }
        return true
    }

    /// Evicts the oldest waiting event of the lowest level present; returns its size, or `nil`
    /// when nothing waits.
    private static func evictOldest(in state: inout State) -> Int? {
        guard let lowest = state.liveByLevel.firstIndex(where: { $0 > 0 }) else { return nil }
        var index = state.evictionCursor[lowest]
        let retryCount = state.retry.count
        while index < retryCount + state.events.count {
            let isRetry = index < retryCount
            let slot = isRetry ? index : index - retryCount
            if let event = isRetry ? state.retry[slot] : state.events[slot], Int(event.level.rawValue) == lowest {
                if isRetry { state.retry[slot] = nil } else { state.events[slot] = nil }
                let size = event.estimatedSize
                state.evictionCursor[lowest] = index + 1
                state.live -= 1
                state.liveByLevel[lowest] -= 1
                state.bytes -= size
                state.bytesByLevel[lowest] -= size
                state.dropped += 1
                return size
            }
            index += 1
        }
        return nil
    }

    private static func removeHoles(in state: inout State) {
        state.retry.removeAll(where: { $0 == nil })
        state.events.removeAll(where: { $0 == nil })
        resetCursors(in: &state)
    }

    private static func resetCursors(in state: inout State) {
        for level in state.evictionCursor.indices { state.evictionCursor[level] = 0 }
    }

    /// The writer is about to wait for work (group commit): the next event appended wakes it
    /// (``AppendResult/accepted(ticket:wakeWriter:prepareNext:)``). Checked and set under the
    /// lock appends take, so no event can slip in between unseen.
    ///
    /// - Returns: `false` when events already wait: the writer should commit them, not wait.
    func markWriterIdle() -> Bool {
        state.withLock { state -> Bool in
            guard state.live == 0 else { return false }
            state.writerIsIdle = true
            return true
        }
    }

    /// The writer woke (for any reason): events need not wake it until it is idle again.
    ///
    /// - Returns: whether a logged event woke it (``markWriterIdle()`` was undone by an append).
    @discardableResult
    func markWriterBusy() -> Bool {
        state.withLock { state -> Bool in
            defer { state.writerIsIdle = false }
            return !state.writerIsIdle
        }
    }

    /// Takes everything waiting, or `nil` when nothing is. What it takes stays pending (in
    /// flight) until released or put back.
    func take() -> Batch? {
        state.withLock { state -> Batch? in
            guard state.live > 0 else { return nil }
            var events = state.spare
            state.spare = []
            swap(&events, &state.events)
            let retry = state.retry
            state.retry = []
            let taken = Taken(count: state.live, bytes: state.bytes)
            state.inFlight += taken.count
            state.inFlightBytes += taken.bytes
            state.live = 0
            state.bytes = 0
            for level in state.liveByLevel.indices {
                state.liveByLevel[level] = 0
                state.bytesByLevel[level] = 0
            }
            Self.resetCursors(in: &state)
            return Batch(retry: retry, events: events, lastTicket: state.accepted, taken: taken)
        }
    }

    /// The writer is done with what it took (committed, or set aside): it is no longer pending.
    func release(_ taken: Taken) {
        state.withLock { state in
            state.inFlight -= taken.count
            state.inFlightBytes -= taken.bytes
        }
    }

    /// The writer committed what it took: it is no longer pending, but still held until
    /// ``free(_:)``, when the background has released the events.
    func retire(_ taken: Taken) {
        state.withLock { state in
            state.inFlight -= taken.count
            state.inFlightBytes -= taken.bytes
            state.retired += taken.count
            state.retiredBytes += taken.bytes
        }
    }

    /// The events of a ``retire(_:)`` are freed: their room is available again.
    func free(_ taken: Taken) {
        state.withLock { state in
            state.retired -= taken.count
            state.retiredBytes -= taken.bytes
        }
    }

    /// Puts events whose commit failed back at the head, before everything waiting, and
    /// releases what was taken with them. They count against the bound again; past it (a
    /// `willHandleEvent` that made events larger), the overflow policy evicts, oldest of the
    /// lowest levels first, and counts the drops.
    func putBack(_ events: [LogStore.Event?], releasing taken: Taken) {
        state.withLock { state in
            state.inFlight -= taken.count
            state.inFlightBytes -= taken.bytes
            var kept: [LogStore.Event?] = []
            kept.reserveCapacity(events.count + state.retry.count)
            for case let event? in events {
                let level = Int(event.level.rawValue)
                let size = event.estimatedSize
                kept.append(event)
                state.live += 1
                state.liveByLevel[level] += 1
                state.bytes += size
                state.bytesByLevel[level] += size
            }
            kept.append(contentsOf: state.retry)
            state.retry = kept
            Self.resetCursors(in: &state)
            guard policy != .waitForSpace else { return }
            while state.held > capacity || (state.heldBytes > byteCapacity && state.live > 1) {
                guard Self.evictOldest(in: &state) != nil else { break }
            }
        }
    }

    /// Drops events the writer took and will never commit (the database is damaged), counted
    /// as dropped, and releases what was taken with them.
    func drop(_ events: [LogStore.Event?], releasing taken: Taken) {
        let count = events.lazy.filter { $0 != nil }.count
        state.withLock { state in
            state.inFlight -= taken.count
            state.inFlightBytes -= taken.bytes
            state.dropped += UInt64(count)
        }
    }

    /// From now on every event is dropped and counted, whatever the overflow policy: the
    /// database is damaged, and a caller waiting for room would wait forever.
    func dropEverything() {
        state.withLock { $0.dropsEverything = true }
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

    /// Counts an event dropped outside ``append(_:)`` (one that could not wait for room).
    func countDrop() {
        state.withLock { $0.dropped += 1 }
    }

    /// The ticket of the newest accepted event.
    var lastTicket: UInt64 { state.withLock { $0.accepted } }

    /// Events not yet committed: waiting, in flight, or put back after a failed commit.
    var pendingCount: Int { state.withLock { $0.pending } }

    /// Estimated bytes of the events of ``pendingCount``.
    var pendingBytes: Int { state.withLock { $0.pendingBytes } }

    /// Whether events wait to be taken.
    var hasWaitingEvents: Bool { state.withLock { $0.live > 0 } }

    /// Whether enough waits (in count or bytes) for the writer to start a batch now.
    var isPastWakeThreshold: Bool {
        state.withLock { $0.live >= wakeThreshold || $0.bytes >= byteWakeThreshold }
    }

    /// Whether enough waits for the next batch to start being prepared while one commits.
    var isPastPrepareThreshold: Bool {
        state.withLock { $0.live >= prepareThreshold || $0.bytes >= bytePrepareThreshold }
    }

    /// Events dropped since the store opened.
    var droppedCount: UInt64 { state.withLock { $0.dropped } }

    /// Refuses further events; those already waiting are still taken.
    func close() {
        state.withLock { $0.isClosed = true }
    }
}
