import LogStore

extension ValueParsers {
    /// `--meta`'s value: `key=value` (the key has that value) or `key` (it exists).
    ///
    /// Dots in the key make a path into nested metadata (`http.status=500`); a segment in double
    /// quotes is one key, dots and `=` included (`'"error.message"=timeout'`, as swift-log's
    /// flat `error.message` key; `'http."x.y"'`). The quote needs no escape: no key holding `"`
    /// can be looked up anyway (``MetadataFilter`` cannot express one). The first `=` outside
    /// quotes ends the key; the value is taken as typed.
    static func metadataFilter(_ text: String, option: String = "meta") throws(UsageError) -> MetadataFilter {
        let malformed = invalid(
            option, text,
            "expected key=value or key; dots make a path (http.status=500), quotes keep a key whole ('\"error.message\"=x')")
        var path: [String] = []
        var segment = String.UnicodeScalarView()
        var isQuoted = false
        var inQuotes = false
        var value: String?
        var scalars = text.unicodeScalars.makeIterator()
        loop: while let scalar = scalars.next() {
            if inQuotes {
                if scalar == "\"" { inQuotes = false } else { segment.append(scalar) }
                continue
            }
            switch scalar {
            case "\"":
                // A quote opens a segment; one in the middle of a key (`a"b`) is a slip.
                guard segment.isEmpty, !isQuoted else { throw malformed }
                (inQuotes, isQuoted) = (true, true)
            case ".", "=":
                guard !segment.isEmpty else { throw malformed }
                path.append(String(segment))
                (segment, isQuoted) = (String.UnicodeScalarView(), false)
                if scalar == "=" {
                    var rest = String.UnicodeScalarView()
                    while let next = scalars.next() { rest.append(next) }
                    value = String(rest)
                    break loop
                }
            default:
                // Text straight after a closing quote (`"a"b`) is a slip too.
                guard !isQuoted else { throw malformed }
                segment.append(scalar)
            }
        }
        guard !inQuotes else { throw malformed }
        if value == nil {
            guard !segment.isEmpty else { throw malformed }
            path.append(String(segment))
        }
        return value.map { MetadataFilter.equals(path, $0) } ?? .exists(path)
    }
}
