import Foundation

/// What a cleanup of the history deleted.
public struct HistoryCleanupReport: Sendable, Hashable, Encodable {
    /// Changes deleted.
    public let deletedChanges: Int
    /// The sequence number history is now clean through (every change up to it is gone), or
    /// nil when nothing could go: an author this process's configuration names as a consumer
    /// has no row yet (a tool opened the store before any author named it).
    public let cleanedThrough: Int64?
}

/// The one cleanup rule, for the automatic strategies and ``HistoryCleaner`` alike: history
/// goes only up to the lowest cursor of the authors that consume it (not batch, not retired),
/// and only once every author the configuration names as a consumer has registered.
enum HistoryCleanup {
    /// The most changes one cleanup step deletes: a step is one transaction on the writer, and
    /// logging waits for it. A merge's cleanup takes one step; the manual cleaner takes steps
    /// until it is done.
    static let changesPerStep = 10_000

    /// Deletes up to `maxChanges` of what the rule allows, oldest first, in the caller's write
    /// transaction.
    ///
    /// - Returns: what it deleted and through which seq history is now clean, and whether it
    ///   reached the rule's limit.
    static func clean(required: Set<String>, upTo maxChanges: Int, on connection: Connection, at date: Date = Date())
        throws -> (report: HistoryCleanupReport, isDone: Bool)
    {
        guard let limit = try HistoryAuthors.cleanupLimit(required: required, on: connection) else {
            return (HistoryCleanupReport(deletedChanges: 0, cleanedThrough: nil), true)
        }
        let chunkEnd = try connection.integer(
            HistoryTables.sequenceAtOffsetSQL,
            [.integer(limit), .integer(Int64(max(1, maxChanges)))])
        let through = chunkEnd.map { $0 - 1 } ?? limit
        try connection.run(HistoryTables.deleteThroughSQL, [.integer(through)])
        let deleted = Int(connection.changes)
        try connection.run(
            HistoryTables.recordCleanupSQL,
            [.real(date.timeIntervalSince1970), .integer(through)])
        return (HistoryCleanupReport(deletedChanges: deleted, cleanedThrough: through), chunkEnd == nil)
    }

    /// When the last cleanup ran (any process's), nil if none has.
    static func lastCleanup(on connection: Connection) throws -> Date? {
        try connection.real(HistoryTables.lastCleanupSQL).map(Date.init(timeIntervalSince1970:))
    }
}

/// Deletes consumed history on request (``LogStore/historyCleaner()``), by exactly the rule the
/// automatic strategies follow.
public struct HistoryCleaner: Sendable {
    let store: LogStore

    /// Deletes every change each consuming author has consumed, no more.
    ///
    /// - Throws: ``LogStoreError/readonly`` for a store opened read-only; ``LogStoreError/closed``.
    @discardableResult
    public func clean() async throws -> HistoryCleanupReport {
        try await store.cleanHistory()
    }
}
