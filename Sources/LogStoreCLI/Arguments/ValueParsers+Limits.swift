/// The parsers of the sweep's limits: an age (`--max-age 14d`) and a size (`--size-limit 64MB`).
extension ValueParsers {
    /// The longest age accepted: 100 years. Anything longer is surely a typo, and the bound keeps
    /// the seconds far from where `Duration` and `Date` arithmetic would overflow.
    static let maximumAgeSeconds: Double = 100 * 365 * 86_400

    /// An age: `30s`, `15m`, `12h`, `14d`, `2w`, or a plain number of seconds (`90`). Fractions
    /// are allowed (`1.5h`).
    static func age(_ text: String, option: String) throws(UsageError) -> Duration {
        let seconds = isPlainNumber(text) ? Double(text) : relativeSeconds(text)
        guard let seconds, seconds.isFinite, seconds >= 0 else {
            throw invalid(option, text, "expected a duration such as 30s, 15m, 12h or 14d (a plain number is seconds)")
        }
        guard seconds <= maximumAgeSeconds else {
            throw invalid(option, text, "expected at most 100 years (36500d)")
        }
        return .seconds(seconds)
    }

    /// A size in bytes: a plain number (`500000`), or a number and a unit, with or without a
    /// space: `64MB`, `1.5GB` (KB, MB, GB, TB: powers of 1000, as the commands print sizes) or
    /// `512KiB`, `2GiB` (KiB, MiB, GiB, TiB: powers of 1024). Units ignore case; `B` is bytes.
    /// Underscores may group digits (`500_000`). Fractions of a byte round to the nearest byte.
    static func byteSize(_ text: String, option: String) throws(UsageError) -> Int64 {
        let digits = text.prefix { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "_") }
        let number = digits.filter { $0 != "_" }
        let unit = text[digits.endIndex...].drop { $0 == " " }.lowercased()
        guard let multiplier = byteUnits[unit], let amount = Double(number), amount.isFinite else {
            throw invalid(option, text, "expected a size in bytes (500000) or with a unit: 64MB, 1.5GB, 512KiB "
                + "(KB, MB, GB, TB are powers of 1000; KiB, MiB, GiB, TiB of 1024)")
        }
        // A whole number of bytes is taken exactly: a Double is exact only up to 2^53.
        if multiplier == 1, let exact = Int64(number) { return exact }
        let bytes = (amount * multiplier).rounded()
        // Int64.max is not a Double; 2^63, the next one up, is the first that does not fit.
        guard bytes < 0x1p63 else {
            throw invalid(option, text, "expected a size below 8 EiB")
        }
        return Int64(bytes)
    }

    /// Bytes per unit, by lower-cased name.
    private static let byteUnits: [String: Double] = [
        "": 1, "b": 1,
        "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
        "kib": 0x1p10, "mib": 0x1p20, "gib": 0x1p30, "tib": 0x1p40,
    ]

    /// Digits with at most a decimal point: `90`, `2.5`.
    private static func isPlainNumber(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") } && Double(text) != nil
    }
}
