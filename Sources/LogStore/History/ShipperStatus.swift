public import Foundation

/// A shipper's progress and counters, as the store keeps them (``LogStore/Info/shippers``,
/// ``HistoryStatus/shippers``, `logstore history`): readable by any process.
public struct ShipperStatus: Sendable, Hashable, Encodable {
    /// The history author it consumes as.
    public var author: String
    /// Where it sends (kind and URLs, without credentials).
    public var destination: String
    /// When it first shipped this store.
    public var started: Date
    /// Rows acknowledged (messages, tasks and gap rows; a retried request counts once).
    public var sentRows: Int
    /// Requests acknowledged.
    public var sentRequests: Int
    /// Bytes acknowledged, before compression.
    public var sentBytes: Int64
    /// Requests sent again after a failure.
    public var retries: Int
    /// Requests that failed (a timeout, a refused connection, a 5xx or 429 answer).
    public var failures: Int
    /// Rows the destination refused (400 or 413 for a single row) and that were not retried.
    public var setAsideRows: Int
    /// Rows deleted by the size limit before the shipper sent them, reported as gap rows.
    public var gapRows: Int
    /// When a request was last acknowledged.
    public var lastSent: Date?
    /// The last failure, and when it happened.
    public var lastError: String?
    /// When ``lastError`` happened.
    public var lastErrorDate: Date?
    /// Rows that were in the store before the shipper started and are not sent yet (about: ids
    /// of rows swept since count too).
    public var backfillRows: Int64
    /// Changes committed that it has not acknowledged.
    public var behindChanges: Int
    /// How long the oldest change it has not acknowledged has waited; nil when caught up.
    public var lag: TimeInterval?

    /// Whether it has sent everything the store holds.
    public var isCaughtUp: Bool { behindChanges == 0 && backfillRows == 0 }
}
