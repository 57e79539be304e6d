/// Where a live tail (``LogStore/tail(_:from:onGap:)``) starts.
public enum TailStart: Sendable, Hashable {
    /// Only messages committed after `tail` returns.
    case now
    /// The newest `count` messages that match (as committed when `tail` returns), then every new
    /// one: `journalctl -n count -f`. Zero or less is ``now``.
    case last(Int)
    /// Right after the message a cursor names: resumes a tail that stopped. Each yielded
    /// message's cursor is `MessageQuery.Cursor(lastID: message.id)`. A cursor past the newest
    /// message (the store was emptied since, and SQLite numbers new rows from 1 again; or the
    /// cursor is from another store) starts at the oldest message left.
    case after(MessageQuery.Cursor)
}

/// Messages a live tail could not yield: their rows were removed (by the sweep, ``LogStore/removeAll()``
/// or ``LogStore/removeSessions(_:)``) after they were committed and before the tail read them.
///
/// Reported to the tail's `onGap` handler before the next message it yields. See
/// ``LogStore/tail(_:from:onGap:)`` for what the tail can and cannot tell.
public struct TailGap: Sendable, Hashable, CustomStringConvertible {
    /// The ids of the messages skipped: every message the tail missed has an id in this range
    /// (not every id in it was a match, or even a message: the rows are gone, and the store
    /// cannot tell which of them matched).
    public var skippedIDs: ClosedRange<Int64>

    /// A gap over these ids.
    public init(skippedIDs: ClosedRange<Int64>) {
        self.skippedIDs = skippedIDs
    }

    /// Which ids were skipped, for a line on standard error or in a log.
    public var description: String {
        "messages m\(skippedIDs.lowerBound)…m\(skippedIDs.upperBound) were removed before the tail read them"
    }
}
