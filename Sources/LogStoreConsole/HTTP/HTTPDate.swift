import Glibc

/// The `Date` field's value: IMF-fixdate, RFC 9110 §5.6.7 (`Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Now, from the system's wall clock.
    static func now() -> String {
        format(time(nil))
    }

    /// `seconds` since 1970 as IMF-fixdate.
    static func format(_ seconds: time_t) -> String {
        var seconds = seconds
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil, (0..<7).contains(parts.tm_wday), (0..<12).contains(parts.tm_mon) else {
            return "Thu, 01 Jan 1970 00:00:00 GMT"
        }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
