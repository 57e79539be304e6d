import Foundation
import Glibc

/// Plain-text renderings shared by the commands.
enum Format {
    /// `2025-03-01T12:34:56.789Z`: ISO 8601 in UTC with milliseconds. Hand-rolled on `gmtime_r`
    /// because it runs once per printed message.
    static func timestamp(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = floor(interval)
        var milliseconds = Int(((interval - seconds) * 1000).rounded())
        if milliseconds >= 1000 {
            seconds += 1
            milliseconds -= 1000
        }
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
            + "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))"
            + ".\(pad(milliseconds, 3))Z"
    }

    /// The same in `zone`: `Z` for UTC, else the local wall-clock time and its offset,
    /// `2025-06-15T17:06:40.123+02:00` (one form the time options read back).
    static func timestamp(_ date: Date, in zone: TimeZone) -> String {
        let offset = zone.secondsFromGMT(for: date)
        if offset == 0 && zone.identifier == CommandEnvironment.utc.identifier { return timestamp(date) }
        let shifted = timestamp(date.addingTimeInterval(Double(offset))).dropLast()
        let minutes = abs(offset) / 60
        return shifted + (offset < 0 ? "-" : "+") + pad(minutes / 60, 2) + ":" + pad(minutes % 60, 2)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// `1,234,567`.
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        return value < 0 ? "-" + grouped : grouped
    }

    /// `1 message`, `1,234 messages`.
    static func plural(_ value: Int, _ noun: String) -> String {
        "\(count(value)) \(noun)\(value == 1 ? "" : "s")"
    }

    /// `512 bytes`, `12.3 KB`, `4.5 MB`, `1.2 GB` (powers of 1000, as disk tools count).
    static func bytes(_ value: Int64) -> String {
        let units = ["KB", "MB", "GB", "TB"]
        guard value >= 1000 else { return value == 1 ? "1 byte" : "\(value) bytes" }
        var scaled = Double(value)
        var unit = ""
        for candidate in units {
            scaled /= 1000
            unit = candidate
            if scaled < 1000 { break }
        }
        return "\(decimal(scaled, places: scaled < 100 ? 1 : 0)) \(unit)"
    }

    /// A number with a fixed count of decimals.
    static func decimal(_ value: Double, places: Int) -> String {
        String(format: "%.\(places)f", value)
    }

    /// `3d 4h 12m`, `5m 3s`, `42s`.
    static func duration(_ seconds: Double) -> String {
        var remaining = Int(seconds.rounded(.down))
        let days = remaining / 86_400
        remaining %= 86_400
        let hours = remaining / 3600
        remaining %= 3600
        let minutes = remaining / 60
        let secs = remaining % 60
        if days > 0 { return "\(days)d \(hours)h \(minutes)m" }
        if hours > 0 { return "\(hours)h \(minutes)m" }
        if minutes > 0 { return "\(minutes)m \(secs)s" }
        return "\(secs)s"
    }

    /// `key:   value` lines with the values aligned; continuation lines of a multi-line value are
    /// indented to the value column.
    static func fields(_ rows: [(String, String)], indent: Int = 0) -> [String] {
        // Terminal columns, not characters: a key may be CJK.
        let width = (rows.map { DisplayWidth.of($0.0) }.max() ?? 0) + 2
        let prefix = String(repeating: " ", count: indent)
        var lines: [String] = []
        for (key, value) in rows {
            let valueLines = value.split(separator: "\n", omittingEmptySubsequences: false)
            let label = key + ":" + String(repeating: " ", count: max(width - DisplayWidth.of(key) - 1, 1))
            lines.append(prefix + label + (valueLines.first.map(String.init) ?? ""))
            for continuation in valueLines.dropFirst() {
                lines.append(prefix + String(repeating: " ", count: width) + continuation)
            }
        }
        return lines
    }

    /// Quotes an argument for a POSIX shell when it needs it, for commands we suggest.
    static func shellQuoted(_ argument: String) -> String {
        let safe = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_./=:,+@%"))
        if !argument.isEmpty, argument.unicodeScalars.allSatisfy({ $0.isASCII && safe.contains($0) }) {
            return argument
        }
        return "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Makes logged text safe for one terminal line: newlines, tabs and other control characters
    /// (which could move the cursor or change colours: logs carry attacker-controlled text) are
    /// shown as escapes.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar): result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
