extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds (truncated; saturated past about 292 years, where
    /// `Int64` nanoseconds end, so a "wait forever" duration does not trap).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let limit = Int64.max / 1_000_000_000 - 1
        if seconds > limit { return .max }
        if seconds < -limit { return .min }
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
