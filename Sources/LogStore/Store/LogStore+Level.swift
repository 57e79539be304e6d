extension LogStore {
    /// The severity of a message: swift-log's seven levels, in the same order.
    ///
    /// Stored in the `level` column of `messages` as its raw value (0 = trace … 6 = critical).
    public enum Level: Int16, Sendable, Codable, Comparable, CaseIterable, CustomStringConvertible {
        case trace = 0
        case debug = 1
        case info = 2
        case notice = 3
        case warning = 4
        case error = 5
        case critical = 6

        public static func < (lhs: Level, rhs: Level) -> Bool {
            lhs.rawValue < rhs.rawValue
        }

        /// The lowercase name (`"warning"`), as swift-log spells it.
        public var name: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }

        public var description: String { name }

        /// Parses a level name (case-insensitive, `"warn"` accepted); `nil` for anything else.
        public init?(name: String) {
            let lowered = name.lowercased()
            if lowered == "warn" {
                self = .warning
                return
            }
            guard let level = Level.allCases.first(where: { $0.name == lowered }) else { return nil }
            self = level
        }
    }
}
