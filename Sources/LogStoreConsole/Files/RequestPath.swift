/// A request path made safe to walk: decoded exactly once, every segment a plain name.
///
///     let path = try RequestPath(encoded: "logs/a%20b.txt")   // ["logs", "a b.txt"]
///
/// The path arrives as it was in the URL (after the route's prefix), still percent-encoded, and
/// the browser decodes it itself, once: decoding twice is how `%252e%252e` becomes `..`. A `%`
/// that decoding leaves behind (`%25`) is just a character of a name. Everything is checked on
/// the decoded bytes, so an encoding cannot hide a `..`, a NUL or a backslash; and the walk
/// (``PathResolver``) only ever sees names from here.
///
/// The empty path is the browser's folder itself.
struct RequestPath: Sendable, Equatable {
    /// The longest name, in UTF-8 bytes: Linux's `NAME_MAX`.
    static let maximumSegmentBytes = 255
    /// The longest path, decoded, in bytes: Linux's `PATH_MAX`.
    static let maximumPathBytes = 4096

    /// The decoded names, each checked by ``FileNameRules``.
    let segments: [String]

    /// The names joined by `/`: the clean relative path (empty for the folder itself).
    var path: String { segments.joined(separator: "/") }

    /// The browser's folder itself.
    static let root = RequestPath(checkedSegments: [])

    /// Segments already checked: the root, or a listed directory's path plus a listed name.
    init(checkedSegments: [String]) {
        segments = checkedSegments
    }

    /// Decodes and checks a request path.
    /// - Parameter encoded: the URL path after the route's prefix, as sent (not decoded).
    /// - Throws: the first problem found, in this order: ``FileAccessError/pathTooLong(_:)``
    ///   (raw), ``FileAccessError/backslash`` (raw), ``FileAccessError/malformedEscape``,
    ///   ``FileAccessError/pathTooLong(_:)`` (decoded), ``FileAccessError/controlCharacter(_:)``
    ///   and ``FileAccessError/backslash`` (decoded bytes), ``FileAccessError/invalidUTF8``,
    ///   ``FileAccessError/absolute``, then each segment's ``FileAccessError/emptySegment`` or
    ///   one of ``FileNameRules/check(_:)``'s errors.
    init(encoded: String) throws(FileAccessError) {
        let raw = Array(encoded.utf8)
        // Every decoded byte takes at most three raw ones: a longer raw path cannot fit, and is
        // refused before any work proportional to it.
        if raw.count > 3 * Self.maximumPathBytes { throw .pathTooLong(raw.count) }
        if raw.contains(UInt8(ascii: "\\")) { throw .backslash }
        guard let bytes = PercentDecoding.bytes(raw, plusIsSpace: false) else { throw .malformedEscape }
        if bytes.count > Self.maximumPathBytes { throw .pathTooLong(bytes.count) }
        // Bytes first: a NUL or control byte is refused before it could cut a C string short,
        // and `%5c` is found whatever the UTF-8 around it.
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F { throw .controlCharacter(UInt32(byte)) }
            if byte == UInt8(ascii: "\\") { throw .backslash }
        }
        // Swift's validation is strict: overlong forms (`C0 AE` for `.`), surrogates and values
        // past U+10FFFF all fail it.
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        if text.isEmpty {
            segments = []
            return
        }
        if text.utf8.first == UInt8(ascii: "/") { throw .absolute }
        var segments: [String] = []
        for segment in text.split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty { throw .emptySegment }
            let name = String(segment)
            try FileNameRules.check(name)
            segments.append(name)
        }
        self.segments = segments
    }

    /// The path with `name` appended (a name read from a listing, already checked).
    func appending(checked name: String) -> RequestPath {
        RequestPath(checkedSegments: segments + [name])
    }
}
