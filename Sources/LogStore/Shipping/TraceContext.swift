import Foundation

/// A W3C trace context (`traceparent: 00-<trace id>-<span id>-<flags>`): the ids a shipped row
/// is joined to its trace by. Ids are kept as lowercase hex; all-zero ids are invalid.
struct TraceContext: Sendable, Hashable {
    /// 32 lowercase hex digits.
    var traceID: String
    /// 16 lowercase hex digits, when known.
    var spanID: String?

    /// Reads a `traceparent` header's value; nil when it is not one.
    init?(traceparent: String?) {
        guard let traceparent else { return nil }
        let parts = traceparent.trimmingCharacters(in: .whitespaces).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].count == 2, parts[0] != "ff",
            let trace = Self.hex(parts[1], length: 32), let span = Self.hex(parts[2], length: 16)
        else { return nil }
        traceID = trace
        spanID = span
    }

    /// Reads the ids from a message's metadata: a `traceparent` value, or a trace id under
    /// `trace_id` / `traceID` / `trace-id` (with a span id under the same spellings of `span`).
    init?(metadata: LogStore.Metadata) {
        if case .string(let header) = metadata["traceparent"], let context = TraceContext(traceparent: header) {
            self = context
            return
        }
        let trace = ["trace_id", "traceID", "trace-id", "traceId"].lazy
            .compactMap { key -> String? in
                guard case .string(let value) = metadata[key] else { return nil }
                return Self.hex(Substring(value), length: 32)
            }.first
        guard let trace else { return nil }
        traceID = trace
        spanID = ["span_id", "spanID", "span-id", "spanId"].lazy
            .compactMap { key -> String? in
                guard case .string(let value) = metadata[key] else { return nil }
                return Self.hex(Substring(value), length: 16)
            }.first
    }

    /// `text` in lowercase when it is `length` hex digits, not all zero.
    private static func hex(_ text: Substring, length: Int) -> String? {
        guard text.utf8.count == length, text.utf8.allSatisfy({ $0.isHexDigit }), text.utf8.contains(where: { $0 != UInt8(ascii: "0") })
        else { return nil }
        return text.lowercased()
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
