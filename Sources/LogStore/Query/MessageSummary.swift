public import Foundation

/// What ``LogStore/summary(_:buckets:)`` returns: how many messages a query matches, per level
/// and per label, and how they spread over time.
///
/// ```swift
/// let summary = try await store.summary(MessageQuery(since: Date().addingTimeInterval(-3600)))
/// print(summary.total, summary.levels[.error], summary.labels.first?.label ?? "-")
/// for bucket in summary.histogram { print(bucket.start, bucket.total) }
/// ```
///
/// Counts are exact (never estimated) and cover the messages the same query's
/// ``LogStore/count(_:)-(MessageQuery)`` counts: `total == count(query)`, and the buckets add up to `total`.
public struct MessageSummary: Sendable, Hashable, Codable {
    /// The time the histogram spans: the query's ``MessageQuery/since`` and
    /// ``MessageQuery/until`` where given, otherwise the oldest and newest matching message's
    /// date. `nil` when no message matches and the query leaves an end open (there is no time
    /// to span).
    public var interval: DateInterval?
    /// The matching messages.
    public var total: Int
    /// The matching messages per level; every level is present, zeros included.
    public var levels: LevelCounts
    /// The matching messages per label, most first (ties by name); labels without a match are
    /// left out.
    public var labels: [LabelCount]
    /// The messages over ``interval`` in equal buckets, oldest first: as many as asked for, or
    /// none when ``interval`` is `nil`. With a query whose window matches nothing, the buckets
    /// are there and every count is zero.
    public var histogram: [Bucket]

    /// Creates a summary (the store builds these; tests and tools may too).
    public init(interval: DateInterval?, total: Int, levels: LevelCounts, labels: [LabelCount], histogram: [Bucket]) {
        self.interval = interval
        self.total = total
        self.levels = levels
        self.labels = labels
        self.histogram = histogram
    }

    /// The share of the matching messages at ``LogStore/Level/error`` or
    /// ``LogStore/Level/critical``, from 0 to 1 (0 when nothing matches).
    public var errorRate: Double {
        total == 0 ? 0 : Double(levels[.error] + levels[.critical]) / Double(total)
    }

    /// One label's matching messages.
    public struct LabelCount: Sendable, Hashable, Codable {
        /// The label's name.
        public var label: String
        /// Its matching messages.
        public var count: Int

        /// A label and its count.
        public init(label: String, count: Int) {
            self.label = label
            self.count = count
        }
    }

    /// One slice of the histogram: the messages logged from ``start`` (inclusive) to ``end``
    /// (exclusive, except the last bucket's end when it is the newest message's date).
    public struct Bucket: Sendable, Hashable, Codable {
        /// The bucket's first instant.
        public var start: Date
        /// Where the next bucket starts.
        public var end: Date
        /// Its messages per level, so a chart can colour a bar by level.
        public var levels: LevelCounts

        /// A bucket over `start ..< end` with these counts.
        public init(start: Date, end: Date, levels: LevelCounts) {
            self.start = start
            self.end = end
            self.levels = levels
        }

        /// All its messages.
        public var total: Int { levels.total }
    }

    /// A count for each of the seven levels. Encoded as an object keyed by level name
    /// (`{"critical": 0, "debug": 12, …}`), every level present.
    public struct LevelCounts: Sendable, Hashable, Codable {
        private var counts: [Int]

        /// Every level at zero.
        public init() {
            counts = Array(repeating: 0, count: LogStore.Level.allCases.count)
        }

        /// The count of `level`.
        public subscript(level: LogStore.Level) -> Int {
            get { counts[Int(level.rawValue)] }
            set { counts[Int(level.rawValue)] = newValue }
        }

        /// The counts added up.
        public var total: Int { counts.reduce(0, +) }

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        /// Reads the counts keyed by level name, as ``encode(to:)`` writes them; a missing level counts 0.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            self.init()
            for level in LogStore.Level.allCases {
                self[level] = try container.decodeIfPresent(Int.self, forKey: Key(stringValue: level.name)) ?? 0
            }
        }

        /// Writes the counts as an object keyed by level name (`{"error": 3, …}`), every level included.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for level in LogStore.Level.allCases {
                try container.encode(self[level], forKey: Key(stringValue: level.name))
            }
        }
    }
}
