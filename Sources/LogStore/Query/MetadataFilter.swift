/// A condition on a message's metadata (``MessageQuery/metadata``), evaluated with SQLite's
/// JSON functions over the stored metadata JSON.
///
/// A key is a path: `["user"]` is a top-level key, `["http", "status"]` the key `status` of the
/// dictionary under `http` (names are matched exactly, dots and all: `["a.b"]` is one key).
/// Which stored shapes match:
/// - ``equals(_:_:)-([String],_)`` matches a string with that exact text, or a number whose text it is
///   (`"200"` matches `200` written by another tool; the library itself stores every value as a
///   string). It does not match a dictionary or an array.
/// - ``exists(_:)-([String])`` matches any value under the path: a string, number, dictionary, array or
///   JSON `null`.
///
/// A key containing `"` or `\` cannot be named in SQLite's JSON paths: such a filter, or an empty
/// path, is an ``LogStoreError/invalidArgument(_:)``.
public struct MetadataFilter: Sendable, Hashable, Codable {
    /// The key path, outermost key first.
    public var path: [String]
    /// The value the key must have; `nil` when it only has to exist.
    public var value: String?

    /// The value under `path` must be `value`.
    public static func equals(_ path: [String], _ value: String) -> MetadataFilter {
        MetadataFilter(path: path, value: value)
    }

    /// The top-level `key` must be `value`.
    public static func equals(_ key: String, _ value: String) -> MetadataFilter {
        MetadataFilter(path: [key], value: value)
    }

    /// Some value must be under `path`.
    public static func exists(_ path: [String]) -> MetadataFilter {
        MetadataFilter(path: path, value: nil)
    }

    /// The top-level `key` must have some value.
    public static func exists(_ key: String) -> MetadataFilter {
        MetadataFilter(path: [key], value: nil)
    }

    /// Whether SQLite's JSON paths can name every key: a quoted key there ends at the first `"`
    /// and knows no escapes, so a key holding `"` or `\` cannot be looked up.
    var isExpressible: Bool { !path.isEmpty && path.allSatisfy { !$0.contains("\"") && !$0.contains("\\") } }

    /// The path in SQLite's JSON path syntax, every key quoted so that no key character (`.`,
    /// `[`, `$`) is read as syntax: bound as an argument, never spliced into SQL.
    var jsonPath: String {
        "$" + path.map { ".\"" + $0 + "\"" }.joined()
    }
}
