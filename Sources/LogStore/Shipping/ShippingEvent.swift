import Foundation

/// What a running shipper tells its listeners (``LogShipper/events()``).
public enum ShippingEvent: Sendable, Hashable {
    /// A request was acknowledged.
    case sent(rows: Int, bytes: Int, seconds: Double)
    /// A request failed and will be sent again after `delay`.
    case retrying(error: String, attempt: Int, delay: Duration)
    /// The destination refused rows for good (400, or 413 for one row): they were set aside.
    case setAside(rows: Int, reason: String)
    /// Rows deleted before they were shipped went out as a counted gap.
    case gap(entity: HistoryEntity, rows: Int)
    /// Everything committed so far is acknowledged.
    case caughtUp
}
