/// `blobs` (network bodies, deduplicated by key and counted by links, inline or in a file) and
/// `blob_totals`, their sums. Their static statements, prepared by their callers.
enum Blobs {
    /// A body's stored size, by row id.
    static let sizeSQL = "SELECT size FROM blobs WHERE id = ?"

    /// A body's sizes, compression and inline data (NULL when in a file), by key.
    static let contentByKeySQL = "SELECT size, decompressed_size, compression, data FROM blobs WHERE key = ?"

    /// Whether a body of the key is stored.
    static let existsSQL = "SELECT 1 FROM blobs WHERE key = ?"

    /// A body's row id and sizes, by key.
    static let byKeySQL = "SELECT id, size, decompressed_size FROM blobs WHERE key = ?"

    /// Links a body once more.
    static let linkSQL = "UPDATE blobs SET link_count = link_count + 1 WHERE id = ?"

    /// A new body, linked once; `data` NULL when it is in a file.
    static let insertSQL = """
        INSERT INTO blobs (key, size, decompressed_size, compression, link_count, data) VALUES (?, ?, ?, ?, 1, ?)
        """

    /// A body's links, key and whether it is in a file, by row id.
    static let linksByIDSQL = "SELECT id, link_count, key, data IS NULL FROM blobs WHERE id = ?"

    /// A body's links, key and whether it is in a file, by key.
    static let linksByKeySQL = "SELECT id, link_count, key, data IS NULL FROM blobs WHERE key = ?"

    /// Drops one link to a body.
    static let unlinkSQL = "UPDATE blobs SET link_count = link_count - 1 WHERE id = ?"

    /// Deletes a body's row.
    static let deleteSQL = "DELETE FROM blobs WHERE id = ?"

    /// Whether the body of the key is stored in a file.
    static let isInFileSQL = "SELECT 1 FROM blobs WHERE key = ? AND data IS NULL"

    /// How many bodies, their stored and their decompressed bytes.
    static let totalsSQL = "SELECT count(*), coalesce(sum(size), 0), coalesce(sum(decompressed_size), 0) FROM blobs"

    /// The bytes of the bodies kept in files.
    static let fileBytesSQL = "SELECT file_size FROM blob_totals"

    /// The bytes of every body as stored.
    static let storedBytesSQL = "SELECT size FROM blob_totals"

    /// The largest bodies first: key, sizes, compression, links and whether in a file.
    static let largestSQL = """
        SELECT lower(hex(key)), size, decompressed_size, compression, link_count, data IS NULL
        FROM blobs ORDER BY size DESC, key LIMIT ?
        """

    /// The bodies' kept totals: count, stored, decompressed and file bytes.
    static let keptTotalsSQL = """
        SELECT count, size, decompressed_size, file_size FROM blob_totals
        """

    /// The bodies' totals counted row by row: count, stored, decompressed and file bytes.
    static let countedTotalsSQL = """
        SELECT count(*), coalesce(sum(size), 0), coalesce(sum(decompressed_size), 0),
               coalesce(sum(CASE WHEN data IS NULL THEN size ELSE 0 END), 0)
        FROM blobs
        """

    /// How many bodies there are.
    static let countSQL = "SELECT count(*) FROM blobs"

    /// The bodies kept in files: row id, key and size.
    static let inFilesSQL = "SELECT id, key, size FROM blobs WHERE data IS NULL ORDER BY id"

    /// Deletes the bodies of the ids of a JSON array.
    static let deleteIDsSQL = "DELETE FROM blobs WHERE id IN (SELECT value FROM json_each(?))"
}
