public import Foundation

/// Where the change history stands, from ``LogStore/historyStatus()``: each author's cursor and
/// how far behind it is, how large the history is, and what a cleanup could delete now.
///
/// A store whose history was never turned on (``LogStore/Configuration/history`` nil in every
/// process that opened it), or one older than the history (a schema before 9, opened read-only),
/// has an ``isRecorded`` `false` status: no authors, no changes.
///
/// In JSON (`logstore history --json`) every key is always present, `null` when it has no value.
public struct HistoryStatus: Sendable, Hashable, Encodable {
    /// One registered author: a process role (the server, its worker, a nightly job).
    public struct Author: Sendable, Hashable, Encodable {
        /// Whether an author's consumption holds cleanup back.
        public enum Kind: String, Sendable, Hashable, Codable {
            /// It merges, and history it has not consumed is kept for it.
            case required
            /// It only writes (``HistoryConfiguration/batchAuthors``): it never holds cleanup back.
            case batch
        }

        /// Its name (``HistoryConfiguration/currentAuthor`` of the processes that are it).
        public var name: String
        /// Whether it holds cleanup back.
        public var kind: Kind
        /// The last history sequence number it consumed.
        public var cursor: Int64
        /// Changes (history rows: one per transaction, entity and operation) after its cursor
        /// written by other authors: what its next merge would read, its own changes aside.
        public var behindChanges: Int
        /// The distinct transactions of ``behindChanges``.
        public var behindTransactions: Int
        /// When it got its row: its first open, or when another author's configuration first
        /// named it as a consumer.
        public var registered: Date
        /// When it first opened the store itself; nil while it was only named by another author
        /// (history is kept for it all the same).
        public var opened: Date?
        /// When it last consumed history; `nil` if it never did.
        public var lastMerge: Date?
        /// How many times it consumed history.
        public var merges: Int
        /// When it was retired (``LogStore/retireHistoryAuthor(_:)``); `nil` while it is active.
        /// A retired author no longer holds cleanup back; opening the store as it again makes it
        /// active.
        public var retired: Date?
        /// Rows the size limit deleted before this author consumed their insertion, per entity
        /// (only entities with a gap), until its next read reports them.
        public var gapRows: [HistoryEntity: Int]
        /// Whether it asks for the retention guard: ``HistoryConfiguration/retentionGuard`` of
        /// its last writable open, stored in its row. It stays after that process ends, until
        /// the author opens without it or is retired (``LogStore/retireHistoryAuthor(_:)``);
        /// `false` for an author only named so far, and in a store of schema 9 or earlier.
        /// Only a required author's request counts (``HistoryStatus/retentionGuardIsOn``).
        public var asksForRetentionGuard: Bool

        /// Every entity's ``gapRows`` added up.
        public var gapRowCount: Int { gapRows.values.reduce(0, +) }

        /// - Parameters: each the property of the same name.
        public init(
            name: String, kind: Kind, cursor: Int64, behindChanges: Int, behindTransactions: Int,
            registered: Date, opened: Date? = nil, lastMerge: Date?, merges: Int, retired: Date?,
            gapRows: [HistoryEntity: Int], asksForRetentionGuard: Bool = false
        ) {
            self.name = name
            self.kind = kind
            self.cursor = cursor
            self.behindChanges = behindChanges
            self.behindTransactions = behindTransactions
            self.registered = registered
            self.opened = opened
            self.lastMerge = lastMerge
            self.merges = merges
            self.retired = retired
            self.gapRows = gapRows
            self.asksForRetentionGuard = asksForRetentionGuard
        }

        private enum CodingKeys: String, CodingKey {
            case name, kind, cursor, behindChanges, behindTransactions, registered, opened, lastMerge, merges, retired,
                gapRows, asksForRetentionGuard
        }

        /// Encodes every property, `null` for a missing date, and ``gapRows`` as an object with
        /// every entity by name (`{"blob":0,"message":12,"session":0,"task":0}`), so each author
        /// has the same keys.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(kind, forKey: .kind)
            try container.encode(cursor, forKey: .cursor)
            try container.encode(behindChanges, forKey: .behindChanges)
            try container.encode(behindTransactions, forKey: .behindTransactions)
            try container.encode(registered, forKey: .registered)
            try container.encode(opened, forKey: .opened)
            try container.encode(lastMerge, forKey: .lastMerge)
            try container.encode(merges, forKey: .merges)
            try container.encode(retired, forKey: .retired)
            var gaps: [String: Int] = [:]
            for entity in HistoryEntity.allCases { gaps[Self.key(entity)] = gapRows[entity] ?? 0 }
            try container.encode(gaps, forKey: .gapRows)
            try container.encode(asksForRetentionGuard, forKey: .asksForRetentionGuard)
        }

        private static func key(_ entity: HistoryEntity) -> String {
            switch entity {
            case .message: "message"
            case .task: "task"
            case .session: "session"
            case .blob: "blob"
            }
        }
    }

    /// Every registered author, by name.
    public var authors: [Author]
    /// Rows in the history (one per transaction, entity and operation).
    public var changeCount: Int
    /// The history's approximate size in bytes: each row's id ranges and tombstones, plus
    /// ``rowOverhead`` for its fixed columns and SQLite's record and cell headers (free space
    /// in the table's pages is not counted).
    public var byteCount: Int64
    /// The oldest sequence number still in the history; `nil` when it holds no rows.
    public var firstSequence: Int64?
    /// The last sequence number ever given (kept after cleanup deleted its row); `nil` when no
    /// change was ever recorded.
    public var lastSequence: Int64?
    /// When history was last cleaned up; `nil` if never.
    public var lastCleanup: Date?
    /// The sequence number the last cleanup deleted through (0 before the first).
    public var cleanedThrough: Int64
    /// The authors that ship the store elsewhere (``LogShipper``), with their counters.
    public var shippers: [ShipperStatus] = []
    /// What a cleanup would delete through now (the manual cleaner and the automatic
    /// strategies follow one rule): the lowest cursor of the registered required authors that
    /// have not retired, or the end of history when there is none. `nil` without authors.
    ///
    /// Authors another author's configuration named (``HistoryConfiguration/allAuthors``) count
    /// from then on, before they first open: their cursors hold history back from where they
    /// were named.
    public var cleanupLimit: Int64?
    /// The rows at or before ``cleanupLimit``: what a cleanup could delete now.
    public var cleanableChangeCount: Int

    /// Whether the store has a change history: an author registered or a change recorded.
    public var isRecorded: Bool { !authors.isEmpty || changeCount > 0 || lastSequence != nil }

    /// Whether the retention guard (``HistoryConfiguration/retentionGuard``) was on when this
    /// status was read: `true` exactly when at least one author of ``authors`` is of kind
    /// ``Author/Kind/required``, has not retired, and asks for it (``Author/asksForRetentionGuard``,
    /// the value its last writable open stored in its `history_authors` row).
    ///
    /// While it is on, every age sweep of the store, in any process or tool, leaves every
    /// message and task from the lowest id some required, unretired author has not consumed
    /// on (per entity), however old. The sweep reads the rows again at each of its steps, so an
    /// author that opens, reopens without the guard or retires after this status was read
    /// changes what the next step does. `false` for a store of schema 9 or earlier opened
    /// read-only.
    public var retentionGuardIsOn: Bool { !retentionGuardAuthors.isEmpty }

    /// The authors whose request turns the retention guard on (``retentionGuardIsOn``), by name.
    public var retentionGuardAuthors: [Author] {
        authors.filter { $0.asksForRetentionGuard && $0.kind == .required && $0.retired == nil }
    }

    /// The status of a store without a history.
    public static let empty = HistoryStatus(
        authors: [], changeCount: 0, byteCount: 0, firstSequence: nil, lastSequence: nil,
        lastCleanup: nil, cleanedThrough: 0, cleanupLimit: nil, cleanableChangeCount: 0)

    /// The bytes ``byteCount`` counts for each row besides its id ranges and tombstones: the
    /// integer and date columns (about 20 bytes as SQLite stores them), the record header (10)
    /// and the cell's pointer and length (6).
    public static let rowOverhead: Int64 = 36

    /// - Parameters: each the property of the same name.
    public init(
        authors: [Author], changeCount: Int, byteCount: Int64, firstSequence: Int64?, lastSequence: Int64?,
        lastCleanup: Date?, cleanedThrough: Int64, cleanupLimit: Int64?, cleanableChangeCount: Int
    ) {
        self.authors = authors
        self.changeCount = changeCount
        self.byteCount = byteCount
        self.firstSequence = firstSequence
        self.lastSequence = lastSequence
        self.lastCleanup = lastCleanup
        self.cleanedThrough = cleanedThrough
        self.cleanupLimit = cleanupLimit
        self.cleanableChangeCount = cleanableChangeCount
    }

    private enum CodingKeys: String, CodingKey {
        case authors, changeCount, byteCount, firstSequence, lastSequence, lastCleanup, cleanedThrough,
             cleanupLimit, cleanableChangeCount, retentionGuardIsOn, shippers
    }

    /// Encodes every property, `null` for those without a value, so the keys never vary, and
    /// ``retentionGuardIsOn``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(authors, forKey: .authors)
        try container.encode(changeCount, forKey: .changeCount)
        try container.encode(byteCount, forKey: .byteCount)
        try container.encode(firstSequence, forKey: .firstSequence)
        try container.encode(lastSequence, forKey: .lastSequence)
        try container.encode(lastCleanup, forKey: .lastCleanup)
        try container.encode(cleanedThrough, forKey: .cleanedThrough)
        try container.encode(cleanupLimit, forKey: .cleanupLimit)
        try container.encode(cleanableChangeCount, forKey: .cleanableChangeCount)
        try container.encode(retentionGuardIsOn, forKey: .retentionGuardIsOn)
        try container.encode(shippers, forKey: .shippers)
    }
}
