/// `message_search` (the FTS5 full-text index of messages) and `search_state`, how far it
/// reaches. Their static statements, prepared by their callers.
enum Search {
    /// The id through which every message is indexed.
    static let indexedThroughSQL = "SELECT indexed_through FROM search_state WHERE id = 1"

    /// Indexes the messages with ids above the first argument, through the second.
    static let indexRangeSQL = """
        INSERT INTO message_search (rowid, text, metadata)
        SELECT id, text, metadata FROM messages WHERE id > ? AND id <= ?
        """

    /// Records how far the index reaches.
    static let setIndexedThroughSQL = "UPDATE search_state SET indexed_through = ? WHERE id = 1"

    /// Merges about (minus) the argument's pages of the index's segments (FTS5's `merge` command).
    static let mergeSQL = "INSERT INTO message_search (message_search, rank) VALUES ('merge', ?)"

    /// Records that the index holds no deletions to merge.
    static let markCompactedSQL = "UPDATE search_state SET deleted_since_merge = 0 WHERE id = 1"

    /// How many messages were deleted from the index since it was last compacted.
    static let deletedSinceMergeSQL = "SELECT deleted_since_merge FROM search_state WHERE id = 1"

    /// The pages of the index's segments.
    static let segmentPagesSQL = "SELECT count(*) FROM message_search_data"

    /// Indexes every message the index does not cover yet, and records it complete.
    static let indexRemainingSQL = """
        INSERT INTO message_search (rowid, text, metadata)
        SELECT id, text, metadata FROM messages
        WHERE id > (SELECT indexed_through FROM search_state WHERE id = 1) ORDER BY id;
        UPDATE search_state SET indexed_through = (SELECT coalesce(max(id), 0) FROM messages) WHERE id = 1;
        """
}
