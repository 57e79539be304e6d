import Foundation

/// The writer's check, after commits, that the store has not grown past the size at which it is
/// swept (``LogStore/Configuration/sizeSweepThreshold``): a store logging at full speed fills its
/// limit in seconds, far sooner than the next scheduled sweep.
struct SizeWatch: Sendable {
    let limit: Int64
    let onOverLimit: @Sendable () -> Void
    /// When the last check ran, on the store's ``StoreTimer``.
    var lastCheck: Duration?

    /// At most every 250 ms (each check runs three pragmas and reads one row), sooner for limits
    /// under 64 MB, down to 25 ms: logging at full speed fills a few megabytes a second, a
    /// large share of a small limit in 250 ms.
    var interval: Duration {
        .milliseconds(250) * min(max(Double(limit) / 64_000_000, 0.1), 1)
    }

    /// Whether it is time to check again; notes the check.
    mutating func isDue(now: Duration) -> Bool {
        if let lastCheck, now - lastCheck < interval { return false }
        lastCheck = now
        return true
    }

    /// The store's size as the size sweep judges it (``StoreSize/judgedBytes(_:sizeLimit:)``: the
    /// pages in use and the blob files, and for a small limit the free pages and the WAL), read
    /// on the writer's connection.
    func storeSize(_ writer: BatchWriter) throws -> Int64 {
        // `limit` is the threshold, the size limit's fixed share.
        let sizeLimit = Int64((Double(limit) / LogStore.Configuration.sizeSweepThresholdRatio).rounded())
        return try StoreSize.judgedBytes(writer.connection, sizeLimit: sizeLimit)
    }
}
