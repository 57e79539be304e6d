public import Foundation

/// What ``LogStore/messages(_:)`` returns: filters, order and a page size, with keyset
/// pagination through ``Cursor``.
///
/// ```swift
/// var query = MessageQuery(levels: .warning ... .critical, labels: ["db"], limit: 100)
/// let first = try await store.messages(query)
/// query.cursor = first.nextCursor          // the next page continues after the last message
/// let second = try await store.messages(query)
/// ```
public struct MessageQuery: Sendable, Hashable {
    /// Levels to include; `nil` for all.
    public var levels: ClosedRange<LogStore.Level>?
    /// Labels to include; empty for all.
    public var labels: [String]
    /// Labels to leave out (applied after ``labels``).
    public var excludedLabels: [String]
    /// Sessions to include; empty for all.
    public var sessions: [UUID]
    /// Only messages logged at or after this date.
    public var since: Date?
    /// Only messages logged before this date.
    public var until: Date?
    /// Full-text search over the message text (see ``TextSearch`` for the two syntaxes); `nil`
    /// for none.
    public var text: TextSearch?
    /// Conditions on the metadata, all of which must hold; empty for none.
    public var metadata: [MetadataFilter]
    /// Source files to include, as stored: a file's last path component (`"Server.swift"`);
    /// empty for all.
    public var files: [String]
    /// Functions to include, exactly as logged (`#function`, such as `"handle(_:)"`); empty for all.
    public var functions: [String]
    /// Threads to include by their id (``LogStore/Message/threadID``); empty for all.
    public var threadIDs: [Int32]
    /// Whether a ``text`` search also reports where each message matched
    /// (``MessagePage/matches``), for highlighting. Default: `false`: it re-reads each
    /// returned message's text (about 13 µs a message, a third of a "latest 100" search).
    public var highlightsMatches: Bool = false
    /// Only the technical messages of this network task (its ``NetworkTaskSummary/id``); setting
    /// it includes task messages whatever ``includesTaskMessages`` says.
    public var taskID: UUID?
    /// The order of the results.
    public var order: SortOrder
    /// The most messages in one page (at least 1).
    public var limit: Int
    /// Continue after the last message of an earlier page (``MessagePage/nextCursor``).
    public var cursor: Cursor?
    /// Whether the technical messages of network tasks (one per completed task, label `network`
    /// unless set) are included. Default: `false`, so pages, ``LogStore/count(_:)-(MessageQuery)`` and
    /// ``LogStore/Info/messageCount`` all see the same logged messages; set it to see the
    /// network timeline beside them (``LogStore/task(id:)`` has the task itself).
    public var includesTaskMessages: Bool

    /// The order of query results. Messages are ordered by their row id, which is the order the
    /// writer committed them in: the order of logging. (A message logged with an explicit
    /// earlier `createdAt` keeps its place in that order.)
    public enum SortOrder: String, Sendable, Hashable, Codable {
        /// The newest message first: "latest N".
        case newestFirst
        /// The oldest message first, as a log file reads.
        case oldestFirst
        /// Best matches of ``MessageQuery/text`` first (SQLite's bm25 rank), then newest first;
        /// without a text search, the same as ``newestFirst``.
        case relevance
    }

    /// A position in the results: the next page starts after it. Its text form (`description`)
    /// can be handed to a user or a command line and parsed back.
    ///
    /// In id order a cursor is the last message's id (`m1234`), so a page continues exactly
    /// after it however many messages arrive meanwhile. In ``SortOrder/relevance`` order it is a
    /// position among the ranked results (`r200`), since ranks move as messages arrive.
    public struct Cursor: Sendable, Hashable, Codable, LosslessStringConvertible {
        /// The id of the last message of the page (0 for a ``SortOrder/relevance`` position).
        public var lastID: Int64
        /// For ``SortOrder/relevance`` order, how many ranked results came before; `nil` for a
        /// cursor in id order.
        public internal(set) var rankOffset: Int?

        /// A cursor after the message with this id.
        public init(lastID: Int64) {
            self.lastID = lastID
        }

        /// A cursor after the first `rankOffset` results in relevance order.
        init(rankOffset: Int) {
            self.lastID = 0
            self.rankOffset = rankOffset
        }

        /// Parses the text form; `nil` for anything else.
        public init?(_ description: String) {
            if description.hasPrefix("r"), let offset = Int(description.dropFirst()), offset >= 0 {
                self.init(rankOffset: offset)
                return
            }
            guard description.hasPrefix("m"), let id = Int64(description.dropFirst()), id >= 0 else { return nil }
            self.init(lastID: id)
        }

        /// The text form: `m<id>` in id order, `r<offset>` in relevance order; ``init(_:)`` parses it back.
        public var description: String { rankOffset.map { "r\($0)" } ?? "m\(lastID)" }
    }

    /// Creates a query; every filter defaults to "everything".
    public init(
        levels: ClosedRange<LogStore.Level>? = nil,
        labels: [String] = [],
        excludedLabels: [String] = [],
        sessions: [UUID] = [],
        since: Date? = nil,
        until: Date? = nil,
        text: TextSearch? = nil,
        metadata: [MetadataFilter] = [],
        files: [String] = [],
        functions: [String] = [],
        threadIDs: [Int32] = [],
        taskID: UUID? = nil,
        order: SortOrder = .newestFirst,
        limit: Int = 100,
        cursor: Cursor? = nil,
        includesTaskMessages: Bool = false
    ) {
        self.levels = levels
        self.labels = labels
        self.excludedLabels = excludedLabels
        self.sessions = sessions
        self.since = since
        self.until = until
        self.text = text
        self.metadata = metadata
        self.files = files
        self.functions = functions
        self.threadIDs = threadIDs
        self.taskID = taskID
        self.order = order
        self.limit = limit
        self.cursor = cursor
        self.includesTaskMessages = includesTaskMessages
    }
}

/// One page of ``LogStore/messages(_:)`` results.
public struct MessagePage: Sendable, Hashable {
    /// The messages, in the query's order.
    public var messages: [LogStore.Message]
    /// Where the next page starts; `nil` when this page is the last.
    public var nextCursor: MessageQuery.Cursor?
    /// For a ``MessageQuery/text`` search with ``MessageQuery/highlightsMatches``: per message
    /// id, the parts of its text that matched (the words, prefixes and phrases of the search),
    /// for a caller to highlight.
    public var matches: [Int64: [Range<String.Index>]] = [:]

    /// A page of `messages`, continued at `nextCursor`.
    public init(messages: [LogStore.Message], nextCursor: MessageQuery.Cursor?, matches: [Int64: [Range<String.Index>]] = [:]) {
        self.messages = messages
        self.nextCursor = nextCursor
        self.matches = matches
    }
}
