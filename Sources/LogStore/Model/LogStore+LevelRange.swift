extension LogStore.Level {
    /// The levels a filter names, as `logstore messages --level`, the console's `level=` and the
    /// exported page's `#level=` read it: one level means that level *and above*, two joined by
    /// `...` an inclusive range.
    ///
    /// ```swift
    /// try LogStore.Level.range(parsing: "warning")      // warning...critical
    /// try LogStore.Level.range(parsing: "warning+")     // the same
    /// try LogStore.Level.range(parsing: "info...error") // info...error
    /// ```
    ///
    /// A trailing `+` is accepted and changes nothing ("and above" is what a single level means
    /// already). So is a trailing space: in a URL's query, or a fragment read as one, `+` is how a
    /// space is written, so `level=warning+` arrives as `"warning "` and `level=warning%2B` as
    /// `"warning+"`; all three mean the same. Names are case-insensitive and `warn` is `warning`,
    /// as ``init(name:)`` reads them.
    ///
    /// - Parameter text: A level name, optionally followed by `+`, or `lower...upper`.
    /// - Returns: The inclusive range of levels the filter shows.
    /// - Throws: ``LogStoreError/Kind/invalidArgument`` when a part names no level (its
    ///   ``LogStoreError/reason`` says which part, and the accepted forms) or when the first level
    ///   of a range is above the second.
    public static func range(parsing text: String) throws(LogStoreError) -> ClosedRange<LogStore.Level> {
        if let separator = text.range(of: "...") {
            let lower = try level(in: text[..<separator.lowerBound])
            let upper = try level(in: text[separator.upperBound...])
            guard lower <= upper else {
                throw .invalidArgument("the first level (\(lower)) must not be above the second (\(upper))")
            }
            return lower...upper
        }
        return try level(in: text[...]) ... .critical
    }

    /// One level's name, with surrounding spaces and trailing `+`s dropped.
    private static func level(in part: Substring) throws(LogStoreError) -> LogStore.Level {
        var name = part.drop(while: { $0.isWhitespace })
        while let last = name.last, last == "+" || last.isWhitespace { name = name.dropLast() }
        guard let level = LogStore.Level(name: String(name)) else {
            let names = LogStore.Level.allCases.map(\.name).joined(separator: ", ")
            throw .invalidArgument("no level is called \(name.isEmpty ? "''" : String(name)) (expected one of \(names), or a range such as info...error)")
        }
        return level
    }
}
