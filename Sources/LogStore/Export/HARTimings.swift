import Foundation

/// A HAR entry's `timings` and `time`, in milliseconds, from the last transaction's metrics (the
/// one that brought the response) when they were stored.
///
/// HAR marks a phase that did not happen or was not measured with -1, except `send`, `wait` and
/// `receive`, which must be numbers of at least 0: an unknown one is 0. When the metrics give none
/// of those three (on Linux `URLSession` reports no transaction metrics) but the task's duration
/// is known, the time the phases do not account for goes to `wait`, so `time` is still the
/// task's duration. `time` is the sum of the phases that are known; `ssl` is part of `connect`
/// (as HAR 1.2 says), so it is not counted twice.
struct HARTimings: Equatable {
    var blocked: Double = -1
    var dns: Double = -1
    var connect: Double = -1
    var ssl: Double = -1
    var send: Double = 0
    var wait: Double = 0
    var receive: Double = 0

    init(transaction: NetworkTransactionMetrics?, duration: TimeInterval?) {
        var measuredTransfer = false
        if let transaction {
            let firstStep = transaction.domainLookupStart ?? transaction.connectStart ?? transaction.requestStart
            blocked = Self.span(transaction.fetchStart, firstStep) ?? -1
            dns = Self.span(transaction.domainLookupStart, transaction.domainLookupEnd) ?? -1
            connect = Self.span(transaction.connectStart, transaction.connectEnd) ?? -1
            ssl = Self.span(transaction.secureConnectionStart, transaction.secureConnectionEnd ?? transaction.connectEnd) ?? -1
            let phases = [
                Self.span(transaction.requestStart, transaction.requestEnd),
                Self.span(transaction.requestEnd, transaction.responseStart),
                Self.span(transaction.responseStart, transaction.responseEnd),
            ]
            send = phases[0] ?? 0
            wait = phases[1] ?? 0
            receive = phases[2] ?? 0
            measuredTransfer = phases.contains { $0 != nil }
        }
        if !measuredTransfer, let duration, duration.isFinite, duration > 0 {
            wait = max(0, duration * 1000 - total)
        }
    }

    /// The entry's `time`: every known phase, `ssl` only when `connect` (which holds it) is unknown.
    var total: Double {
        let optional = [blocked, dns, connect, connect < 0 ? ssl : -1].filter { $0 >= 0 }.reduce(0, +)
        return optional + send + wait + receive
    }

    /// Milliseconds from `start` to `end`; nil unless both are known and in order.
    private static func span(_ start: Date?, _ end: Date?) -> Double? {
        guard let start, let end, end >= start else { return nil }
        return end.timeIntervalSince(start) * 1000
    }
}
