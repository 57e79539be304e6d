/// The checks of a history configuration: they need the tombstone fields' rules, which are the
/// history's own.
extension HistoryConfiguration {
    /// Refuses what cannot work, before the store is touched.
    ///
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` for an empty author name, a batch
    ///   author asking for the retention guard (``retentionGuard``: it consumes nothing, so its
    ///   request would be recorded and do nothing), or a strategy that cleans after fewer than
    ///   one merge, or before no time at all (negative).
    func validate() throws {
        _ = try HistoryTombstoneFields.validated(tombstones)
        let names = allAuthors.union(batchAuthors)
        if names.contains(where: \.isEmpty) {
            throw LogStoreError.invalidArgument("a history author's name is empty")
        }
        if retentionGuard, batchAuthors.contains(currentAuthor) {
            throw LogStoreError.invalidArgument(
                "the history author \"\(currentAuthor)\" is a batch author and consumes nothing, so it cannot ask for the "
                    + "retention guard: set retentionGuard in the configuration of an author that consumes")
        }
        switch cleanStrategy {
        case .everyNMerges(let every) where every < 1:
            throw LogStoreError.invalidArgument("the history clean strategy everyNMerges(\(every)) needs at least 1")
        case .byDuration(let interval) where interval < .zero:
            throw LogStoreError.invalidArgument("the history clean strategy byDuration(\(interval)) is negative")
        default:
            break
        }
    }
}
