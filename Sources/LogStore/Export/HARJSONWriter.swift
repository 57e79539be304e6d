import Foundation

/// Builds the JSON of one HAR object as UTF-8 bytes, fields in the order they are written (so the
/// output is deterministic). Every string is escaped by ``EscapeRules/json``: logged text is
/// attacker-controlled, and a quote, a backslash or a control character must not end a string.
struct HARJSONWriter {
    private(set) var bytes: [UInt8] = []
    /// One flag per open object or array: whether it has no member yet (no comma before the next).
    private var isEmpty: [Bool] = []

    init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    /// Starts an object, as the value of `name` when given; `onNewLine` puts an array element on
    /// a line of its own (one HAR entry a line reads and diffs well).
    mutating func beginObject(_ name: String? = nil, onNewLine: Bool = false) {
        member(name)
        if onNewLine { bytes.append(UInt8(ascii: "\n")) }
        bytes.append(UInt8(ascii: "{"))
        isEmpty.append(true)
    }

    mutating func endObject() {
        isEmpty.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    /// Starts an array, as the value of `name` when given.
    mutating func beginArray(_ name: String? = nil) {
        member(name)
        bytes.append(UInt8(ascii: "["))
        isEmpty.append(true)
    }

    mutating func endArray() {
        isEmpty.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes `"name":"value"` (or an array element when `name` is nil).
    mutating func field(_ name: String?, _ value: String) {
        member(name)
        string(value)
    }

    /// Writes the UTF-8 text in `utf8` as a string value; the caller has checked it is UTF-8.
    mutating func field(_ name: String?, utf8: UnsafeRawBufferPointer) {
        member(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(escaping: utf8.assumingMemoryBound(to: UInt8.self), .json)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes a string value whose bytes need no escaping (Base64, ASCII digits).
    mutating func field(_ name: String?, plain: some Sequence<UInt8>) {
        member(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: plain)
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func field(_ name: String?, _ value: Int64) {
        member(name)
        bytes.append(decimal: value)
    }

    mutating func field(_ name: String?, _ value: Int) {
        field(name, Int64(value))
    }

    mutating func field(_ name: String?, _ value: Bool) {
        member(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Writes milliseconds with at most three decimals and never an exponent: `12.5`, `-1`, `0`;
    /// -1 (HAR's "not known") for a value no timing can have.
    mutating func field(_ name: String?, milliseconds: Double) {
        member(name)
        guard let thousandths = Milliseconds.rounded(milliseconds * 1000) else { return bytes.append(decimal: -1) }
        if thousandths < 0 { bytes.append(UInt8(ascii: "-")) }
        bytes.append(decimal: thousandths.magnitude / 1000)
        var fraction = thousandths.magnitude % 1000
        guard fraction != 0 else { return }
        bytes.append(UInt8(ascii: "."))
        var divisor: UInt64 = 100
        while fraction > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / divisor))
            fraction %= divisor
            divisor /= 10
        }
    }

    /// Writes a date as ISO 8601 in UTC with milliseconds: `2024-05-01T12:34:56.789Z`.
    mutating func field(_ name: String?, date: Date) {
        member(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(iso8601: date)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes raw JSON text (punctuation between streamed parts).
    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Hands what is built so far to `output` and empties the buffer, keeping the objects and
    /// arrays still open: a HAR file is written an entry at a time.
    mutating func drain(into output: ExportOutput) throws {
        try output.write(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    /// The comma before a member when it is not the first, and its key.
    private mutating func member(_ name: String?) {
        if let last = isEmpty.indices.last {
            if !isEmpty[last] { bytes.append(UInt8(ascii: ",")) }
            isEmpty[last] = false
        }
        guard let name else { return }
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func string(_ value: String) {
        bytes.append(quoting: value, .json)
    }
}
