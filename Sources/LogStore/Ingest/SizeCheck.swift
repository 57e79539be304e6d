import Synchronization

/// The writer's idle-time size check: after commits, at most every ``SizeWatch/interval``, it
/// measures the store and calls the watcher when it has grown past the size at which it is swept.
final class SizeCheck: Sendable {
    private let watch = Mutex<SizeWatch?>(nil)
    private let timer: StoreTimer
    /// Whether the last check found the store past that size: sweep steps then get more of the
    /// writer's time than logged events.
    private let overLimit = Atomic<Bool>(false)
    /// How far below the size at which it is swept the last check found the store (`.max`
    /// before a check, or without a watch).
    private let headroom = Atomic<Int64>(.max)

    init(timer: StoreTimer) {
        self.timer = timer
    }

    /// Starts watching: `onOverLimit` is called after a commit that finds the store past `limit` bytes.
    func watch(limit: Int64, onOverLimit: @escaping @Sendable () -> Void) {
        watch.withLock { $0 = SizeWatch(limit: limit, onOverLimit: onOverLimit) }
    }

    /// Whether the last check found the store past its limit.
    var isOverLimit: Bool { overLimit.load(ordering: .relaxed) }

    /// Bytes the store may still grow by before it is swept, as of the last check.
    var bytesBelowLimit: Int64 { headroom.load(ordering: .relaxed) }

    /// Measures the store when a check is due, and calls the watcher when it is past its limit.
    ///
    /// - Returns: whether a check ran.
    /// - Throws: when the store could not be measured.
    @discardableResult
    func checkIfDue(_ writer: BatchWriter) throws -> Bool {
        let now = timer.elapsed()
        let due = watch.withLock { watch -> SizeWatch? in
            guard watch?.isDue(now: now) == true else { return nil }
            return watch
        }
        guard let due else { return false }
        let size = try due.storeSize(writer)
        overLimit.store(size > due.limit, ordering: .relaxed)
        headroom.store(due.limit - size, ordering: .relaxed)
        if size > due.limit { due.onOverLimit() }
        return true
    }
}
