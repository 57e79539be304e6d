/// What the store's bodies add up to.
extension BlobStore {
    /// How many blobs there are and their bytes, as stored and decompressed (from the table;
    /// the sizes of the files themselves are not read).
    static func statistics(
        connection: Connection
    ) throws(DatabaseError) -> (count: Int, storedBytes: Int64, decompressedBytes: Int64) {
        let statement = try connection.cachedStatement(Blobs.totalsSQL)
        defer { statement.reset() }
        guard try statement.step() else { return (0, 0, 0) }
        return (statement.int(at: 0), statement.int64(at: 1), statement.int64(at: 2))
    }
}
