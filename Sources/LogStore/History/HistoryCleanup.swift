import Foundation

/// What a cleanup of the history deleted.
public struct HistoryCleanupReport: Sendable, Hashable, Encodable {
    /// Changes deleted.
    public let deletedChanges: Int
    /// The sequence number history is now clean through (every change up to it is gone), or
    /// nil when nothing could go: an author that consumes history has not registered yet.
    public let cleanedThrough: Int64?
}

/// The one cleanup rule, for the automatic strategies and ``HistoryCleaner`` alike: history
/// goes only up to the lowest cursor of the authors that consume it (not batch, not retired),
/// and only once every author the configuration names as a consumer has registered.
enum HistoryCleanup {
    /// Deletes what the rule allows, in the caller's write transaction.
    static func clean(required: Set<String>, on connection: Connection, at date: Date = Date()) throws
        -> HistoryCleanupReport
    {
        guard let limit = try HistoryAuthors.cleanupLimit(required: required, on: connection) else {
            return HistoryCleanupReport(deletedChanges: 0, cleanedThrough: nil)
        }
        try connection.run("DELETE FROM history WHERE seq <= ?", [.integer(limit)])
        let deleted = Int(connection.changes)
        try connection.run(
            "UPDATE history_state SET last_cleanup = ?, cleaned_through = max(cleaned_through, ?) WHERE id = 1",
            [.real(date.timeIntervalSince1970), .integer(limit)])
        return HistoryCleanupReport(deletedChanges: deleted, cleanedThrough: limit)
    }

    /// When the last cleanup ran (any process's), nil if none has.
    static func lastCleanup(on connection: Connection) throws -> Date? {
        try connection.real("SELECT last_cleanup FROM history_state WHERE id = 1").map(Date.init(timeIntervalSince1970:))
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
