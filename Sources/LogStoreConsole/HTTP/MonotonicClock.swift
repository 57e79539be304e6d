import Glibc

/// The loop's clock: `CLOCK_MONOTONIC` in nanoseconds, which no change of the wall clock moves.
///
/// The server's deadlines are about sockets the kernel times in real time (`epoll_wait`), so
/// they read the system's clock, not a store's injectable `TimeSource`; tests shorten the limits.
enum MonotonicClock {
    /// Nanoseconds since an arbitrary start.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
