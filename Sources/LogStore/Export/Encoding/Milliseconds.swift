import Foundation

/// Times and durations as whole milliseconds (or thousandths of them), for every format.
///
/// A stored date or duration is the caller's, or a damaged row's: it may be NaN, infinite or
/// absurdly far away, and `Int64(_:)` traps on a value it cannot hold. Past ±9e15, beyond 2^53,
/// a `Double` no longer holds every integer anyway, so no format writes such a value as a number.
enum Milliseconds {
    /// `value` rounded to the nearest integer; nil when it is not finite or beyond ±9e15.
    static func rounded(_ value: Double) -> Int64? {
        let rounded = value.rounded()
        guard rounded.isFinite, abs(rounded) < 9e15 else { return nil }
        return Int64(rounded)
    }

    /// The milliseconds from 1970 to `date`, rounded; nil past ±9e15 (285,000 years).
    static func since1970(_ date: Date) -> Int64? {
        rounded(date.timeIntervalSince1970 * 1000)
    }
}
