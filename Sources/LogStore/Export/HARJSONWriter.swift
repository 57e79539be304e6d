import Foundation
import Glibc

/// Builds the JSON of one HAR object as UTF-8 bytes, fields in the order they are written (so the
/// output is deterministic). Every string goes through ``string(_:)``: logged text is
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
        quoted(utf8)
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
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func field(_ name: String?, _ value: Int) {
        field(name, Int64(value))
    }

    mutating func field(_ name: String?, _ value: Bool) {
        member(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Writes milliseconds with at most three decimals and never an exponent: `12.5`, `-1`, `0`.
    mutating func field(_ name: String?, milliseconds: Double) {
        member(name)
        bytes.append(contentsOf: Self.milliseconds(milliseconds).utf8)
    }

    /// Writes a date as ISO 8601 in UTC with milliseconds: `2024-05-01T12:34:56.789Z`.
    mutating func field(_ name: String?, date: Date) {
        member(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: Self.iso8601(date).utf8)
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
        var value = value
        value.withUTF8 { buffer in quoted(UnsafeRawBufferPointer(buffer)) }
    }

    /// Appends `utf8` as a JSON string: `"` and `\` escaped, and every control character below
    /// U+0020 (RFC 8259 §7). Runs that need no escape are copied at once.
    private mutating func quoted(_ utf8: UnsafeRawBufferPointer) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if runStart < index { bytes.append(contentsOf: utf8[runStart..<index]) }
            runStart = index + 1
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            default:
                bytes.append(contentsOf: "u00".utf8)
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            }
        }
        if runStart < utf8.count { bytes.append(contentsOf: utf8[runStart..<utf8.count]) }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func milliseconds(_ value: Double) -> String {
        // Beyond ±9e12 ms (285 years) the conversion to Int64 could trap: no timing is that long.
        guard value.isFinite, abs(value) < 9e12 else { return "-1" }
        let thousandths = Int64((value * 1000).rounded())
        let sign = thousandths < 0 ? "-" : ""
        let magnitude = thousandths.magnitude
        let whole = magnitude / 1000
        let fraction = magnitude % 1000
        guard fraction != 0 else { return "\(sign)\(whole)" }
        var digits = String(fraction)
        while digits.count < 3 { digits = "0" + digits }
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)\(whole).\(digits)"
    }

    static func iso8601(_ date: Date) -> String {
        // A stored date is the caller's (`createdAt:`): keep it within years 0...9999, which
        // the format can spell and Int64 holds.
        let clamped = min(max(date.timeIntervalSince1970, -62_167_219_200), 253_402_300_799)
        let milliseconds = Int64(((clamped.isNaN ? 0 : clamped) * 1000).rounded(.down))
        // Floor division, so dates before 1970 keep a fraction in 0...999.
        var seconds = milliseconds / 1000
        var fraction = milliseconds % 1000
        if fraction < 0 {
            seconds -= 1
            fraction += 1000
        }
        var time = time_t(seconds)
        var parts = tm()
        // gmtime_r fails only for years it cannot hold, which the clamp above rules out.
        guard gmtime_r(&time, &parts) != nil else { return "1970-01-01T00:00:00.000Z" }
        func padded(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2))"
            + "T\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2)):\(padded(parts.tm_sec, 2))"
            + ".\(padded(Int32(fraction), 3))Z"
    }
}
