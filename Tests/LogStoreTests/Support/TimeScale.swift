import Foundation

/// How much the time bounds of the tests stretch in this run. Scripts/sanitize.sh sets
/// `LOGSTORE_TIME_SCALE` (4 under AddressSanitizer, 8 under ThreadSanitizer, which slow the code
/// down that much); a normal run leaves it unset and keeps the bounds as written.
enum TimeScale {
    /// The factor from `LOGSTORE_TIME_SCALE`: 1 when unset or not a number of at least 1, so a
    /// typo can only keep a bound, never shorten it.
    static let factor: Double = {
        guard let text = ProcessInfo.processInfo.environment["LOGSTORE_TIME_SCALE"], let value = Double(text),
            value >= 1
        else { return 1 }
        return value
    }()

    /// `seconds` stretched by ``factor``: every helper that bounds a wait passes its bound here,
    /// once, so a test's `seconds: 30` means 30 s normally and 120 s under a factor of 4.
    static func scaled(_ seconds: Double) -> Double { seconds * factor }

    /// `minutes` stretched by ``factor`` and rounded up, for Swift Testing's `.timeLimit`
    /// trait, which counts in whole minutes.
    static func minutes(_ minutes: Int) -> Int { Int((Double(minutes) * factor).rounded(.up)) }
}
