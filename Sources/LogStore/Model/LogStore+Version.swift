extension LogStore {
    /// A semantic version (`major.minor.patch`), used for the library, the store format and the
    /// schema.
    ///
    /// ```swift
    /// let version = LogStore.Version("1.2.0")   // nil for text that does not parse
    /// version! < LogStore.Version.library
    /// ```
    public struct Version: Sendable, Hashable, Comparable, Codable, LosslessStringConvertible {
        /// Incompatible changes.
        public var major: Int
        /// Compatible additions.
        public var minor: Int
        /// Fixes.
        public var patch: Int

        /// Creates a version from its three parts.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        /// Parses `"major.minor.patch"` (also `"major.minor"` and `"major"`); `nil` for anything
        /// else, including negative numbers and extra text.
        public init?(_ description: String) {
            let parts = description.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...3).contains(parts.count) else { return nil }
            var numbers: [Int] = []
            for part in parts {
                guard !part.isEmpty, part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber),
                    let number = Int(part)
                else { return nil }
                numbers.append(number)
            }
            while numbers.count < 3 { numbers.append(0) }
            self.init(numbers[0], numbers[1], numbers[2])
        }

        /// The version as `major.minor.patch`.
        public var description: String { "\(major).\(minor).\(patch)" }

        /// Versions order by major, then minor, then patch.
        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        /// Reads the `major.minor.patch` string ``encode(to:)`` writes.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let version = Version(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "'\(text)' is not a version")
            }
            self = version
        }

        /// Writes the version as its `major.minor.patch` string, as in `manifest.json`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(description)
        }

        /// The version of this library.
        public static let library = Version(0, 6, 0)

        /// The store format (directory layout and manifest) this library writes.
        public static let store = Version(1, 0, 0)

        /// The SQL schema version `n` (`PRAGMA user_version`) expressed as `n.0.0`.
        public static func schema(_ userVersion: Int) -> Version {
            Version(userVersion, 0, 0)
        }

        /// An archive format version (``ExportFormat/archive``) as a version, for
        /// ``LogStoreError/unsupportedVersion(found:supported:)``.
        public static func archiveFormat(_ version: Int) -> Version {
            Version(version, 0, 0)
        }
    }
}
