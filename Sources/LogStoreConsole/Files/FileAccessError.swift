/// Why the file browser refuses a request path, or could not open, list or read what it names.
///
/// The first group are mistakes in the path itself, found before the file system is touched;
/// the second what the walk from the browser's root found on disk. ``category`` says which HTTP
/// answer fits (400, 403, 404 or 500); ``description`` is a sentence for the developer.
///
/// Resolution errors carry the clean, decoded request path (never the raw one: a refused raw
/// path may hold control characters or look-alikes, which a message should not echo).
enum FileAccessError: Error, Equatable, Sendable, CustomStringConvertible {
    // MARK: The path as written

    /// A `%` not followed by two hexadecimal digits.
    case malformedEscape
    /// The decoded bytes are not UTF-8: a truncated sequence, or an overlong one such as `%c0%ae`
    /// (an old way of smuggling `.` past filters that compare encoded text).
    case invalidUTF8
    /// A control character (NUL, C0, DEL, C1), a line separator, or a bidirectional control
    /// that would make a name display as something else. The value is the Unicode scalar.
    case controlCharacter(UInt32)
    /// A backslash, raw or encoded (`%5c`): a separator on other systems, never part of a name
    /// here.
    case backslash
    /// The decoded path starts with `/`: request paths are relative to the browser's folder.
    case absolute
    /// An empty segment: `a//b`, or a trailing `/`.
    case emptySegment
    /// A `.` segment, encoded or not.
    case dotSegment
    /// A `..` segment, encoded or not (`..`, `%2e%2e`, `.%2e`).
    case traversal
    /// A character that looks like `.`, `/` or `\` (U+2024 ONE DOT LEADER, U+FF0E, U+2215
    /// DIVISION SLASH, U+2044, U+FF0F, …). The value is the Unicode scalar.
    case lookAlike(UInt32)
    /// A name not in Unicode Normalization Form C: the same text could name two files.
    case notNormalized
    /// A segment over ``RequestPath/maximumSegmentBytes`` UTF-8 bytes (the value: its length).
    case segmentTooLong(Int)
    /// A path over ``RequestPath/maximumPathBytes`` bytes, decoded (the value: its length, or
    /// of the raw path when that alone is too long to decode).
    case pathTooLong(Int)

    // MARK: What the walk found

    /// A symbolic link on the way leads out of the browser's folder.
    case symlinkOutside(String)
    /// More than ``PathResolver/maximumLinks`` symbolic links on the way (a loop, or a chain
    /// too long to be innocent).
    case symlinkLoop(String)
    /// Nothing of that name.
    case notFound(String)
    /// A segment before the last names a file, not a directory.
    case notADirectory(String)
    /// A read or preview asked of a directory, or a listing of a file.
    case wrongKind(String, expected: String)
    /// A FIFO, socket or device: never opened (a FIFO would block, a device may act on open).
    case unsupportedKind(String)
    /// The process may not search or read it.
    case permission(String)
    /// The browser's own folder cannot be used (the value: its path and why).
    case unusableRoot(String, reason: String)
    /// An opened file used after ``OpenedFile/close()``: a bug in the caller.
    case closed(String)
    /// Any other failure of a system call, with its `errno` (an I/O error, no descriptors left).
    case system(String, operation: String, errno: Int32)

    /// The kind of answer an error calls for.
    enum Category: Sendable, Equatable {
        /// The request path is malformed or hostile: 400 Bad Request.
        case badRequest
        /// The path is well formed, but what it names is off-limits: 403 Forbidden.
        case forbidden
        /// Nothing there (or a file where a directory was needed): 404 Not Found.
        case notFound
        /// The browser failed: 500.
        case failed
    }

    /// Which answer fits: see ``Category``.
    var category: Category {
        switch self {
        case .malformedEscape, .invalidUTF8, .controlCharacter, .backslash, .absolute, .emptySegment, .dotSegment,
            .traversal, .lookAlike, .notNormalized, .segmentTooLong, .pathTooLong, .wrongKind:
            .badRequest
        case .symlinkOutside, .symlinkLoop, .unsupportedKind, .permission:
            .forbidden
        case .notFound, .notADirectory:
            .notFound
        case .unusableRoot, .closed, .system:
            .failed
        }
    }

    var description: String {
        switch self {
        case .malformedEscape:
            "the path has a `%` that is not followed by two hexadecimal digits"
        case .invalidUTF8:
            "the decoded path is not valid UTF-8 (a truncated or overlong sequence)"
        case .controlCharacter(let scalar):
            "the path contains the control character \(Self.codePoint(scalar)), which no name the browser opens may hold"
        case .backslash:
            "the path contains a backslash (raw or as %5C); use `/` between names"
        case .absolute:
            "the path starts with `/`; paths are relative to the browsed folder"
        case .emptySegment:
            "the path has an empty segment (`//`, or a trailing `/`)"
        case .dotSegment:
            "the path has a `.` segment; name each folder once"
        case .traversal:
            "the path has a `..` segment; the file browser never goes above the folder it shows"
        case .lookAlike(let scalar):
            "the path contains \(Self.codePoint(scalar)), which looks like `.`, `/` or `\\` and is refused so that no name can pass for another"
        case .notNormalized:
            "a name in the path is not in Unicode Normalization Form C"
        case .segmentTooLong(let bytes):
            "a name in the path is \(bytes) bytes long; the limit is \(RequestPath.maximumSegmentBytes)"
        case .pathTooLong(let bytes):
            "the path is \(bytes) bytes long; the limit is \(RequestPath.maximumPathBytes)"
        case .symlinkOutside(let path):
            "`\(path)` goes through a symbolic link that leads outside the browsed folder"
        case .symlinkLoop(let path):
            "`\(path)` goes through more than \(PathResolver.maximumLinks) symbolic links (a loop?)"
        case .notFound(let path):
            "`\(path)` does not exist"
        case .notADirectory(let path):
            "`\(path)` goes through a file as if it were a folder"
        case .wrongKind(let path, let expected):
            "`\(path)` is not \(expected)"
        case .unsupportedKind(let path):
            "`\(path)` is a FIFO, socket or device, which the browser does not open"
        case .permission(let path):
            "`\(path)`: permission denied"
        case .unusableRoot(let path, let reason):
            "the folder to browse, \(path), cannot be used: \(reason)"
        case .closed(let path):
            "`\(path)` was read after it was closed"
        case .system(let path, let operation, let code):
            "`\(path)`: \(operation) failed: \(FileSystemCall.message(code)) (errno \(code))"
        }
    }

    /// `U+0000`: a scalar written so that the message shows it without containing it.
    private static func codePoint(_ scalar: UInt32) -> String {
        let hex = String(scalar, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
