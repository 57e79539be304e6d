/// The W3C trace context a shipped row carries: a trace id, and a span id and trace flags when
/// known, so a collector can show the record beside the trace it belongs to (OTLP's `traceId`,
/// `spanId` and `flags`; ClickHouse's `trace_id` column).
///
/// Read from a task's `traceparent` header, or from a message's metadata by one rule:
///
/// 1. A top-level `traceparent` entry in W3C form (`00-<32 hex>-<16 hex>-<2 hex>`) gives all
///    three.
/// 2. Otherwise a top-level `trace_id`, `traceID`, `trace-id` or `traceId` entry (32 hex digits)
///    gives the trace id, and `span_id`, `spanID`, `span-id` or `spanId` (16 hex digits) the span
///    id. When several spellings are there, the first valid one in that order wins.
///
/// Only string values count (and values logged as `CustomStringConvertible`, by their text);
/// hex digits may be of either case and are written lowercase. An id of the wrong length, with
/// a character that is not a hex digit, or all zeros (W3C's "invalid" id) is ignored, and a
/// span id without a valid trace id too: OTLP has no span outside a trace. The entries stay
/// attributes of the record either way.
struct TraceContext: Sendable, Equatable {
    /// 32 lowercase hex digits, not all zero.
    var traceID: String
    /// 16 lowercase hex digits, not all zero; `nil` when none was valid.
    var spanID: String?
    /// W3C `trace-flags` (bit 0: sampled), which OTLP keeps in the low byte of a record's
    /// `flags`; known from a `traceparent` only.
    var flags: UInt8?

    /// Parses a `traceparent` header value; `nil` when it is not a valid one.
    ///
    /// Version `ff` is invalid; version `00` is exactly 55 characters; a later version may go on
    /// after a `-` (W3C: a parser reads the fields it knows).
    init?(traceparent: String?) {
        guard let traceparent else { return nil }
        let bytes = Array(traceparent.utf8)
        guard bytes.count >= 55, bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"),
            bytes[52] == UInt8(ascii: "-"),
            let version = Self.hexByte(bytes[0], bytes[1]), version != 0xFF,
            version != 0 || bytes.count == 55,
            bytes.count == 55 || bytes[55] == UInt8(ascii: "-"),
            let traceID = Self.hexID(bytes[3..<35]), let spanID = Self.hexID(bytes[36..<52]),
            let flags = Self.hexByte(bytes[53], bytes[54])
        else { return nil }
        self.traceID = traceID
        self.spanID = spanID
        self.flags = flags
    }

    /// Reads the trace context from metadata by the rule above; `nil` when there is none.
    init?(metadata: LogStore.Metadata) {
        // One pass over the entries, deciding by the key's length first: most metadata has no
        // trace context, and nine dictionary lookups per row would hash every time.
        var traceparent: TraceContext?
        var trace: (rank: Int, id: String)?
        var span: (rank: Int, id: String)?
        for (key, value) in metadata {
            let length = key.utf8.count
            guard length >= 6, length <= 11 else { continue }
            let text: String
            switch value {
            case .string(let string): text = string
            case .stringConvertible(let convertible): text = convertible.description
            case .dictionary, .array: continue
            }
            if key == "traceparent" {
                traceparent = TraceContext(traceparent: text)
            } else if let rank = Self.traceKeys.firstIndex(of: key) {
                if trace.map({ rank < $0.rank }) ?? true, let id = Self.hexID(text.utf8[...], digits: 32) {
                    trace = (rank, id)
                }
            } else if let rank = Self.spanKeys.firstIndex(of: key) {
                if span.map({ rank < $0.rank }) ?? true, let id = Self.hexID(text.utf8[...], digits: 16) {
                    span = (rank, id)
                }
            }
        }
        if let traceparent {
            self = traceparent
        } else if let trace {
            self.traceID = trace.id
            self.spanID = span?.id
            self.flags = nil
        } else {
            return nil
        }
    }

    /// The keys that may hold a trace id, in order of preference.
    static let traceKeys = ["trace_id", "traceID", "trace-id", "traceId"]
    /// The keys that may hold a span id, in order of preference.
    static let spanKeys = ["span_id", "spanID", "span-id", "spanId"]

    /// `digits` hex digits (32 for a trace id, 16 for a span id) lowercased; `nil` for another
    /// length, another character, or all zeros.
    static func hexID(_ utf8: some Collection<UInt8>, digits: Int) -> String? {
        guard utf8.count == digits else { return nil }
        return hexID(utf8)
    }

    private static func hexID(_ utf8: some Collection<UInt8>) -> String? {
        var lowered = [UInt8]()
        lowered.reserveCapacity(utf8.count)
        var isZero = true
        for byte in utf8 {
            guard let value = hexValue(byte) else { return nil }
            if value != 0 { isZero = false }
            lowered.append(value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10)
        }
        guard !isZero else { return nil }
        return String(decoding: lowered, as: UTF8.self)
    }

    private static func hexByte(_ high: UInt8, _ low: UInt8) -> UInt8? {
        guard let high = hexValue(high), let low = hexValue(low) else { return nil }
        return high << 4 | low
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
