/// What one merge delivers: the current author's unseen transactions, in commit order, and
/// what the size limit deleted before it could see it.
public struct HistoryBatch: Sendable, Hashable {
    /// Other authors' transactions (and this author's own with
    /// ``HistoryConfiguration/includesOwnChanges``), in commit order.
    public let transactions: [HistoryTransaction]
    /// Rows of each entity that the size limit deleted (it is never held back) before this
    /// author consumed their insert: changes it will never see. Empty almost always.
    public let gaps: [HistoryEntity: Int]
}

/// What a merge hook tells the chain.
public enum HistoryMergeHookResult: Sendable, Hashable {
    /// Run the next hook of the chain.
    case goOn
    /// Skip the rest of the chain: this batch is handled.
    case finish
}
