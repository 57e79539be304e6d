import Foundation
import Glibc

/// The few renderings the demo's texts and bodies hold, written as the CLI's `Format` and
/// `HTTPStatus` write them: the demo makes data and depends on no command that prints it, and a
/// seed must keep writing the same store (`DemoCLITests` compares the two).
enum DemoFormat {
    /// `2025-03-01`: the UTC day of a `Format.timestamp`, whose milliseconds round to the nearest.
    static func day(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = floor(interval)
        if ((interval - seconds) * 1000).rounded() >= 1000 { seconds += 1 }
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
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

    /// `512 bytes`, `12.3 KB`, `4.5 MB`, `1.2 GB` (powers of 1000).
    static func bytes(_ value: Int64) -> String {
        guard value >= 1000 else { return value == 1 ? "1 byte" : "\(value) bytes" }
        var scaled = Double(value)
        var unit = ""
        for candidate in ["KB", "MB", "GB", "TB"] {
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

    /// The reason phrase (RFC 9110) of the statuses the demo's problem bodies carry; empty for
    /// any other.
    static func reason(_ status: Int) -> String {
        switch status {
        case 404: "Not Found"
        case 409: "Conflict"
        case 422: "Unprocessable Content"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: ""
        }
    }
}
