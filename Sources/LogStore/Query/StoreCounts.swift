import Foundation

/// Row counts read in one go for ``LogStore/info()``.
struct StoreCounts: Sendable {
    var messages: Int
    var tasks: Int
    var blobs: Int
    /// Bytes of bodies as stored, inline and in files.
    var blobBytes: Int64
    var blobDecompressedBytes: Int64
    /// Bytes of the bodies stored as files in `blobs/`.
    var blobFileBytes: Int64
    var sessions: Int
    var schemaVersion: Int
    var pageBytes: Int64
    /// Messages (ids) past the full-text index's position.
    var unindexedMessages: Int
    /// Rows the size sweep deleted before a history consumer read them (`history_gaps`).
    var historyGaps = 0

    init(connection: Connection) throws {
        messages = Int(try MessageCounts.total(connection) ?? 0)
        unindexedMessages = Int(try SearchIndex.unindexedCount(connection))
        sessions = Int(try connection.integer(Sessions.countSQL) ?? 0)
        schemaVersion = try Migrations.currentVersion(connection)
        guard schemaVersion >= Migrations.firstVersionWithTasks else {
            (tasks, blobs, blobBytes, blobDecompressedBytes, blobFileBytes) = (0, 0, 0, 0, 0)
            pageBytes = try Self.pageBytes(connection)
            return
        }
        tasks = Int(try connection.integer(Tasks.countSQL) ?? 0)
        if schemaVersion >= Migrations.firstVersionWithHistory {
            historyGaps = Int(try connection.integer(HistoryTables.missedRowsSQL) ?? 0)
        }
        // Schema 2 (a read-only older store) has no totals table: count the rows.
        let statement = try connection.prepare(
            schemaVersion >= Migrations.firstVersionWithBlobTotals ? Blobs.keptTotalsSQL : Blobs.countedTotalsSQL)
        _ = try statement.step()
        blobs = statement.int(at: 0)
        blobBytes = statement.int64(at: 1)
        blobDecompressedBytes = statement.int64(at: 2)
        blobFileBytes = statement.int64(at: 3)
        pageBytes = try Self.pageBytes(connection)
    }

    private static func pageBytes(_ connection: Connection) throws -> Int64 {
        let pages = try connection.pageCount() ?? 0
        let pageSize = try connection.pageSize() ?? 0
        return pages * pageSize
    }
}
