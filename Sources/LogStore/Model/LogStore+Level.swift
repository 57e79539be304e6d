extension LogStore {
    /// The severity of a message: swift-log's seven levels, in the same order.
    ///
    /// Stored in the `level` column of `messages` as its raw value (0 = trace … 6 = critical).
    public enum Level: Int16, Sendable, Codable, Comparable, CaseIterable, CustomStringConvertible {
        /// The finest detail, usually off in production.
        case trace = 0
        /// Information for debugging.
        case debug = 1
        /// Normal operation worth recording.
        case info = 2
        /// A normal but significant condition.
        case notice = 3
        /// Something unexpected that did not stop the work.
        case warning = 4
        /// A failure of the work at hand.
        case error = 5
        /// A failure that needs attention now.
        case critical = 6

        /// Levels order by severity: `.trace < .debug < … < .critical`.
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

        /// The level's ``name``.
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
