import Foundation

/// The change history's settings (``LogStore/Configuration/history``): who this process is, who
/// else writes the store, and when consumed history may go.
///
/// Several processes often write one store (the server, its worker, a nightly job), each an
/// *author*. Every transaction records what it changed under its author's name, and each
/// consumer reads what the others wrote, once and in order, from its own cursor. History is
/// deleted only up to the lowest cursor of the authors that consume it.
public struct HistoryConfiguration: Sendable, Hashable {
    /// How consumed history is cleaned up.
    public enum CleanStrategy: Sendable, Hashable {
        /// Never automatically (the default): only ``LogStore/historyCleaner()`` deletes history.
        case none
        /// After a merge, at most once per this interval since the last cleanup of any process
        /// (by the wall clock, the one clock processes share).
        case byDuration(Duration)
        /// After every this many merges of this author (counted in the database, across
        /// restarts); at least 1.
        case everyNMerges(Int)
    }

    /// This process's author name (say `"server"`).
    public var currentAuthor: String
    /// Every author that consumes history (`currentAuthor` is added). Opening the store
    /// registers each of them that has no row yet, its cursor at the end of history: from then
    /// on history is kept for it, and when it first opens it merges what was kept.
    public var allAuthors: Set<String>
    /// Authors that only write (a nightly import): they never merge and never hold cleanup back.
    public var batchAuthors: Set<String>
    /// When consumed history goes.
    public var cleanStrategy: CleanStrategy
    /// Whether this author's own changes are delivered to it too.
    public var includesOwnChanges: Bool
    /// The fields each entity's deletions keep, by column name, so an observer of deletions can
    /// still say what went (``HistoryChange/tombstones``); a tombstone always has the row's id.
    /// Default: ``defaultTombstones`` (a task's UUID, URL, state and status code; a session's
    /// UUID and start; a blob's key; none for messages, so a sweep of millions of messages
    /// writes no millions of tombstones).
    ///
    /// Allowed names, per entity: the table's own columns but bulk content (no message text or
    /// metadata, no blob bytes; a blob's `key` is its 40 hex characters). Opening a store with
    /// another name throws ``LogStoreError/invalidArgument(_:)``.
    ///
    /// One history row keeps at most ``HistoryConfiguration/tombstonesPerChange`` tombstones:
    /// the ids of the rows past it are in ``HistoryChange/ids`` without one.
    public var tombstones: [HistoryEntity: [String]]
    /// Whether this author asks the age sweep (``LogStore/Configuration/maxAge``) to wait for
    /// consumers: while it asks, the age sweep keeps every message and task whose insert a
    /// registered, required author (not batch, not retired) has not consumed yet, stopping per
    /// entity at the lowest such id, however old. Default: `false`.
    ///
    /// The request is recorded in the store, in this author's row, each time the author opens
    /// it writable, and every age sweep of every process follows it: a process opened with
    /// another author's configuration, with `retentionGuard: false`, or without a history
    /// configuration at all (`logstore sweep` from cron) keeps the same rows.
    ///
    /// The request outlives this process, as a cursor does: it stays until the author opens
    /// the store without it (`retentionGuard: false`) or is retired
    /// (``LogStore/retireHistoryAuthor(_:)``, `logstore history --retire NAME`). A process
    /// that stops running does not withdraw it. ``HistoryStatus/retentionGuardIsOn`` and
    /// `logstore history` say whether the guard is on, and which authors ask for it; each
    /// sweep's report says what the guard kept (``LogStore/SweepReport/guardedMessages``).
    ///
    /// Only a consuming author can ask: a batch author (in ``batchAuthors``) consumes nothing,
    /// so there is nothing of its own to wait for, and opening the store as one with
    /// `retentionGuard: true` throws ``LogStoreError/invalidArgument(_:)``; ask from the
    /// configuration of an author that consumes. An author another configuration only named in
    /// ``allAuthors`` asks for nothing until it opens; while someone asks, its cursor (it has
    /// one from being named) holds the age sweep back like any other consumer's.
    ///
    /// The size limit is never held back: the size sweep deletes what it must, and counts the
    /// rows a consumer had not seen as gaps (``LogStore/Info/historyGapCount``). Explicit
    /// removals (``LogStore/removeAll()``, ``LogStore/removeSessions(_:)``) are the caller's
    /// choice and ignore the guard too. A store opened read-only records nothing, and in a
    /// store of schema 9 or earlier opened read-only no author asks.
    public var retentionGuard: Bool

    /// The default ``tombstones``: `task: ["uuid", "url", "state", "status_code"]`,
    /// `session: ["uuid", "started_at"]`, `blob: ["key"]`.
    public static let defaultTombstones: [HistoryEntity: [String]] = [
        .task: ["uuid", "url", "state", "status_code"],
        .session: ["uuid", "started_at"],
        .blob: ["key"],
    ]

    /// The most tombstones one history row (one transaction's deletions of one entity) keeps:
    /// 10,000. A step of the sweep deletes tens of thousands of rows; their tombstones stay
    /// a bounded JSON text per row.
    public static let tombstonesPerChange = 10_000

    /// - Parameters:
    ///   - currentAuthor: this process's author name.
    ///   - allAuthors: every author that consumes history; `currentAuthor` is added.
    ///   - batchAuthors: write-only authors.
    ///   - cleanStrategy: `.none` by default: nothing is deleted without asking.
    ///   - includesOwnChanges: deliver this author's own changes too (`false`).
    ///   - tombstones: the fields deletions keep per entity (``defaultTombstones``).
    ///   - retentionGuard: whether this author asks every age sweep to wait for consumers
    ///     (`false`); a batch author cannot ask.
    public init(
        currentAuthor: String, allAuthors: Set<String> = [], batchAuthors: Set<String> = [],
        cleanStrategy: CleanStrategy = .none, includesOwnChanges: Bool = false,
        tombstones: [HistoryEntity: [String]] = defaultTombstones, retentionGuard: Bool = false
    ) {
        self.currentAuthor = currentAuthor
        self.allAuthors = allAuthors.union([currentAuthor])
        self.batchAuthors = batchAuthors
        self.cleanStrategy = cleanStrategy
        self.includesOwnChanges = includesOwnChanges
        self.tombstones = tombstones
        self.retentionGuard = retentionGuard
    }

    /// Whether `author` holds cleanup back (it consumes history and has not retired).
    func isRequired(_ author: String) -> Bool {
        allAuthors.contains(author) && !batchAuthors.contains(author)
    }

    /// What the batch author of a process that opened a recording store without a history
    /// configuration is named with, before its process name (`unconfigured:logstore`).
    ///
    /// Such a process records from the moment the store records: when it opened the store
    /// before any author existed, its first transaction after an author registered (in any
    /// process) is recorded, and every one after it.
    public static let unconfiguredAuthorPrefix = "unconfigured:"

    /// The authors whose registration cleanup waits for: every consumer, batch authors aside.
    var requiredAuthors: Set<String> { allAuthors.subtracting(batchAuthors) }
}
