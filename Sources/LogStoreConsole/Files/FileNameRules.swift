import Foundation

/// What a name must be for the browser to open it: the same rules for each segment of a
/// request path and for each name a listing shows, so a listed name is one a request can reach.
///
/// Names starting with `.` are allowed (hidden files are listed and opened): the browser shows
/// the developer's own folder, which they chose to serve, and hiding `.env` or `.git` would
/// protect nothing (a request could still name them) while hiding what they came to look at.
enum FileNameRules {
    /// Checks one decoded segment or directory entry name.
    /// - Throws: ``FileAccessError/dotSegment``, ``FileAccessError/traversal``,
    ///   ``FileAccessError/segmentTooLong(_:)``, ``FileAccessError/controlCharacter(_:)``,
    ///   ``FileAccessError/backslash``, ``FileAccessError/lookAlike(_:)`` or
    ///   ``FileAccessError/notNormalized``, the first that applies in that order.
    static func check(_ name: String) throws(FileAccessError) {
        if name == "." { throw .dotSegment }
        if name == ".." { throw .traversal }
        let bytes = name.utf8.count
        if bytes > RequestPath.maximumSegmentBytes { throw .segmentTooLong(bytes) }
        var isASCII = true
        for scalar in name.unicodeScalars {
            if isControl(scalar) { throw .controlCharacter(scalar.value) }
            if scalar == "\\" { throw .backslash }
            if !scalar.isASCII {
                isASCII = false
                if isLookAlike(scalar) { throw .lookAlike(scalar.value) }
            }
        }
        // `String ==` compares canonical equivalence, so compare the scalars themselves: an
        // NFD `é` and an NFC `é` are equal Strings but different names on Linux.
        if !isASCII, !name.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(name.unicodeScalars) {
            throw .notNormalized
        }
    }

    /// Control characters, and the invisible characters that would let a name display as
    /// another: line separators, bidirectional controls (a right-to-left override can make
    /// `txt.exe` read `exe.txt`), zero-width spaces and the byte order mark. The zero-width
    /// joiner and non-joiner stay allowed: emoji sequences and Persian words need them.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200B, 0x200E, 0x200F, 0x2028...0x202E, 0x2060...0x2064, 0x2066...0x2069, 0xFEFF: true
        default: false
        }
    }

    /// Characters that look like `.`, `/` or `\`. Two rules: a list of the ones with no
    /// compatibility decomposition (division and fraction slashes, box-drawing diagonals, the
    /// ideographic full stop, combining solidus overlays, …), and any character whose
    /// compatibility decomposition (NFKD) holds one of the three (U+2024 ONE DOT LEADER → `.`,
    /// U+FF0E → `.`, U+FF0F → `/`, U+FE68 → `\`, …), which is what some other layer may one day
    /// normalize them to.
    static func isLookAlike(_ scalar: Unicode.Scalar) -> Bool {
        if listedLookAlikes.contains(scalar.value) { return true }
        let decomposed = String(Character(scalar)).decomposedStringWithCompatibilityMapping
        return decomposed.unicodeScalars.contains { $0 == "." || $0 == "/" || $0 == "\\" }
    }

    /// The look-alikes the decomposition rule misses.
    private static let listedLookAlikes: Set<UInt32> = [
        // Dots and full stops.
        0x0589, 0x06D4, 0x0701, 0x0702, 0x2E31, 0x3002, 0xFF61, 0xA60E, 0xA4F8,
        // Slashes.
        0x0337, 0x0338, 0x1735, 0x2044, 0x2215, 0x2571, 0x27CB, 0x29F8, 0x2F03, 0x3033,
        // Backslashes.
        0x2216, 0x2572, 0x27CD, 0x29F5, 0x29F9, 0x20E5,
    ]
}
