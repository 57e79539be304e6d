import Foundation

/// The writer's check, after commits, that the store has not grown past the size at which it is
/// swept (``LogStore/Configuration/sizeSweepThreshold``): a store logging at full speed fills its
/// limit in seconds, far sooner than the next scheduled sweep.
struct SizeWatch: Sendable {
    let limit: Int64
    let onOverLimit: @Sendable () -> Void
    var lastCheck: ContinuousClock.Instant?

    /// At most this often: each check runs three pragmas and reads one row.
    static let interval: Duration = .milliseconds(250)

    /// Whether it is time to check again; notes the check.
    mutating func isDue(now: ContinuousClock.Instant) -> Bool {
        if let lastCheck, now - lastCheck < Self.interval { return false }
        lastCheck = now
        return true
    }

    /// The store's size as the size sweep judges it (``Sweeper/usedBytes(_:)``: the pages in use
    /// and the blob files), read on the writer's connection. Free pages and the WAL are left
    /// out: trimming would not shrink them (the sweep's vacuum and checkpoint do), and counting
    /// them here would start sweeps that find nothing to trim.
    static func storeSize(_ writer: BatchWriter) throws -> Int64 {
        try Sweeper.usedBytes(writer.connection)
    }
}
