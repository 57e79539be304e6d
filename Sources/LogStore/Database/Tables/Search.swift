/// `search_state`: how far the full-text index of messages reaches (its partitions:
/// ``SearchPartitions``). Its static statements, prepared by their callers.
enum Search {
    /// The id through which every message is indexed.
    static let indexedThroughSQL = "SELECT indexed_through FROM search_state WHERE id = 1"

    /// Records how far the index reaches.
    static let setIndexedThroughSQL = "UPDATE search_state SET indexed_through = ? WHERE id = 1"
}
