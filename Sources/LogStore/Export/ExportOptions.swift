public import Foundation

/// What an export includes: by default, everything.
///
/// The session and time filters apply to messages and tasks alike, on top of their own queries
/// (a message must match both). A query's order, limit and cursor are ignored: an export holds
/// every matching row, oldest first.
///
/// ```swift
/// // The last hour's warnings and errors with every failed request, for a ticket:
/// let options = ExportOptions(
///     since: Date().addingTimeInterval(-3600),
///     messages: MessageQuery(levels: .warning ... .critical),
///     tasks: TaskQuery(isFailure: true))
/// try await store.export(to: URL(fileURLWithPath: "/tmp/incident.lsarchive"), options: options)
/// ```
///
/// Nothing is un-redacted by an export: values the store redacted when it recorded them are
/// stored redacted, and an export only copies what is stored.
public struct ExportOptions: Sendable, Hashable {
    /// Only these sessions; empty for all.
    public var sessions: [UUID]
    /// Only messages and tasks created at or after this date.
    public var since: Date?
    /// Only messages and tasks created before this date.
    public var until: Date?
    /// The messages to include; `nil` for none. The default includes every message (a network
    /// task's own technical message travels with its task in an archive).
    public var messages: MessageQuery?
    /// The network tasks to include; `nil` for none. The default includes every task.
    public var tasks: TaskQuery?
    /// Text only: write each network task's request and response headers, indented beneath its
    /// line (bodies are never printed in text). Default `false`: one line per task.
    public var includesTaskDetails: Bool
    /// Whether an export replaces a file already at its URL. Default `false`: the export fails
    /// with ``LogStoreError/fileAlreadyExists(_:)`` and the file is left alone.
    ///
    /// With `true`, the new file is still written beside the target and swaps in for the old one
    /// with one `rename(2)` only once complete: a reader sees the old file or the new one, never
    /// half of either, and a failed or cancelled export leaves the old file as it was. The new
    /// file is owner-only (mode 0600), as every export is. A directory at the URL is never
    /// replaced (``LogStoreError/fileAlreadyExists(_:)``).
    ///
    /// ```swift
    /// // Refresh the same report every hour:
    /// try await store.export(
    ///     to: URL(fileURLWithPath: "/srv/reports/errors.ndjson"), format: .ndjson,
    ///     options: ExportOptions(messages: MessageQuery(levels: .error ... .critical), replacesExistingFile: true))
    /// ```
    public var replacesExistingFile: Bool

    /// Creates options; every filter defaults to "everything", and an existing file is not
    /// replaced.
    public init(
        sessions: [UUID] = [], since: Date? = nil, until: Date? = nil,
        messages: MessageQuery? = MessageQuery(), tasks: TaskQuery? = TaskQuery(),
        includesTaskDetails: Bool = false, replacesExistingFile: Bool = false
    ) {
        self.replacesExistingFile = replacesExistingFile
        self.sessions = sessions
        self.since = since
        self.until = until
        self.messages = messages
        self.tasks = tasks
        self.includesTaskDetails = includesTaskDetails
    }

    /// Whether these options select the whole store (then an archive is a plain copy).
    var selectsEverything: Bool {
        guard sessions.isEmpty, since == nil, until == nil else { return false }
        let everything = ExportOptions()
        guard taskQuery(pageSize: 1) == everything.taskQuery(pageSize: 1) else { return false }
        // With every task, every technical message travels anyway: asking for them changes nothing.
        var messages = messageQuery(pageSize: 1)
        messages?.includesTaskMessages = false
        return messages == everything.messageQuery(pageSize: 1)
    }

    /// The message query an export pages through: the caller's filters narrowed by the
    /// options' sessions and times, oldest first; `nil` when no message is included (or the
    /// narrowing leaves nothing, as with disjoint session lists).
    func messageQuery(pageSize: Int) -> MessageQuery? {
        messages.flatMap { narrowed($0, pageSize: pageSize) }.map { query in
            var query = query
            query.highlightsMatches = false
            return query
        }
    }

    /// The task query an export pages through, narrowed and ordered like ``messageQuery(pageSize:)``.
    func taskQuery(pageSize: Int) -> TaskQuery? {
        tasks.flatMap { narrowed($0, pageSize: pageSize) }
    }

    private func narrowed<Query: ExportedQuery>(_ query: Query, pageSize: Int) -> Query? {
        guard let sessions = Self.narrowed(query.sessions, sessions) else { return nil }
        var query = query
        query.sessions = sessions
        query.since = Self.later(query.since, since)
        query.until = Self.earlier(query.until, until)
        query.pageOldestFirst(limit: pageSize)
        return query
    }

    /// Both session lists at once: either alone when the other is empty ("all"), else the
    /// sessions in both; `nil` when they share none, so nothing can match.
    private static func narrowed(_ first: [UUID], _ second: [UUID]) -> [UUID]? {
        if first.isEmpty { return second }
        if second.isEmpty { return first }
        let shared = first.filter(Set(second).contains)
        return shared.isEmpty ? nil : shared
    }

    private static func later(_ first: Date?, _ second: Date?) -> Date? {
        guard let first else { return second }
        guard let second else { return first }
        return max(first, second)
    }

    private static func earlier(_ first: Date?, _ second: Date?) -> Date? {
        guard let first else { return second }
        guard let second else { return first }
        return min(first, second)
    }
}

/// What an export narrows and pages, in both kinds of query.
private protocol ExportedQuery {
    var sessions: [UUID] { get set }
    var since: Date? { get set }
    var until: Date? { get set }
    /// Oldest first, `limit` a page, from the start.
    mutating func pageOldestFirst(limit: Int)
}

extension MessageQuery: ExportedQuery {
    fileprivate mutating func pageOldestFirst(limit: Int) {
        order = .oldestFirst
        self.limit = limit
        cursor = nil
    }
}

extension TaskQuery: ExportedQuery {
    fileprivate mutating func pageOldestFirst(limit: Int) {
        order = .oldestFirst
        self.limit = limit
        cursor = nil
    }
}
