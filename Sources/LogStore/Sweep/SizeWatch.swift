import Foundation

/// The writer's check, after commits, that the store has not grown past the size at which it is
/// swept (``LogStore/Configuration/sizeSweepThreshold``): a store logging at full speed fills its
/// limit in seconds, far sooner than the next scheduled sweep.
struct SizeWatch: Sendable {
    let limit: Int64
    let onOverLimit: @Sendable () -> Void
    var lastCheck: ContinuousClock.Instant?

    /// At most this often: each check reads two file sizes and one row.
    static let interval: Duration = .milliseconds(250)

    /// Whether it is time to check again; notes the check.
    mutating func isDue(now: ContinuousClock.Instant) -> Bool {
        if let lastCheck, now - lastCheck < Self.interval { return false }
        lastCheck = now
        return true
    }

    /// The store's size as the writer sees it: database and WAL files (pages, in memory) and the
    /// blob files.
    static func storeSize(_ writer: BatchWriter) throws -> Int64 {
        let connection = writer.connection
        let files = try connection.integer("SELECT file_size FROM blob_totals") ?? 0
        guard let directory = writer.blobs.directory else {
            let pages = try connection.integer("PRAGMA page_count") ?? 0
            return pages * (try connection.integer("PRAGMA page_size") ?? 4096) + files
        }
        return StoreFiles.fileSize(StoreFiles.databaseURL(in: directory))
            + StoreFiles.fileSize(StoreFiles.walURL(in: directory)) + files
    }
}
