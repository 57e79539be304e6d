public import Foundation

/// What ``LogStore/tasks(_:)`` and ``LogStore/count(_:)-(TaskQuery)`` answer: filters over
/// network tasks, order and a page size, with keyset pagination through ``Cursor``.
///
/// Every filter given must hold (they combine with AND); the values within one list are
/// alternatives (OR). A filter left at its default filters nothing.
///
/// ```swift
/// let failures = try await store.tasks(TaskQuery(hosts: ["api.example.com"], states: [.failure]))
/// let slowAPI = try await store.tasks(TaskQuery(paths: ["/api/v1"], durations: 1.0 ... .infinity))
/// let orders = try await store.count(TaskQuery(urlText: .plain("orders"), isFailure: true))
/// let served = try await store.tasks(TaskQuery(directions: [.inbound]))
/// ```
public struct TaskQuery: Sendable, Hashable {
    /// Hosts to include (exact, case-insensitive); empty for all.
    public var hosts: [String]
    /// Path prefixes to include; empty for all. A task matches when its URL's path (percent
    /// escapes decoded, as `URL.path` gives it) starts with one of them, compared exactly (case
    /// matters, as in URLs) and character for character: `"/api/v1"` matches `/api/v1/users`
    /// and also `/api/v10` (end a prefix with `/` to match whole segments only); `%`, `_`, `*`
    /// and `?` are characters like any other. Tasks without a URL have no path.
    public var paths: [String]
    /// HTTP methods to include (case-insensitive); empty for all.
    public var methods: [String]
    /// Status codes to include; `nil` for all (tasks without a response have none).
    public var statusCodes: ClosedRange<Int>?
    /// States to include; empty for all.
    public var states: [NetworkTaskState]
    /// Failed tasks only (`true`), tasks that did not fail only (`false`, pending ones
    /// included), or all (`nil`, the default).
    ///
    /// A task failed when it is in the ``NetworkTaskState/failure`` state (the store records
    /// that for a completion with an error or a status outside 100..<400, as
    /// ``LogStore/Event/NetworkTaskCompleted/isFailure`` says), or when its row has an error
    /// code or a status of 400 and up whatever its state (a row another tool wrote). Unlike
    /// `states: [.failure]`, `false` also asks for the opposite.
    public var isFailure: Bool?
    /// How long tasks took, in seconds (`duration`, inclusive); `nil` for all. Tasks without a
    /// duration (pending ones, or completions that reported none) match no range. An infinite
    /// bound is no bound: `0.25 ... .infinity` is "at least 250 ms".
    public var durations: ClosedRange<TimeInterval>?
    /// Response content types to include; empty for all. Media types are compared without
    /// their parameters, case or surrounding spaces: `"application/json"` matches
    /// `application/json; charset=utf-8`, and a parameter given here is ignored too. `"image/*"`
    /// matches every `image/` type. Tasks without a content type match none.
    ///
    /// An empty or blank entry is an ``LogStoreError/invalidArgument(_:)``.
    public var contentTypes: [String]
    /// Full-text search over the tasks' URLs (their words, as ``TextSearch`` describes them:
    /// `api.example.com` finds the host, `orders` a path segment, `page` a query item); `nil`
    /// or blank text for all. A query in ``TextSearch/Syntax/fts5`` syntax that FTS5 cannot
    /// parse is an ``LogStoreError/invalidArgument(_:)``.
    public var urlText: TextSearch?
    /// Tasks whose response body the sweep removed (`true`; ``NetworkTaskDetails/isResponseBodyRemoved``),
    /// those whose response body it did not remove (`false`), or all (`nil`).
    public var isResponseBodyRemoved: Bool?
    /// Directions to include (calls made, requests handled); empty for all. Tasks of a store
    /// written before schema 7 are all outbound.
    public var directions: [NetworkTaskDirection]
    /// Labels of their technical messages; empty for all.
    public var labels: [String]
    /// Sessions to include; empty for all.
    public var sessions: [UUID]
    /// Only tasks started at or after this date.
    public var since: Date?
    /// Only tasks started before this date.
    public var until: Date?
    /// Newest or oldest first (by the order tasks were stored).
    public var order: SortOrder
    /// The most tasks in one page (at least 1).
    public var limit: Int
    /// Continue after the last task of an earlier page (``TaskPage/nextCursor``).
    public var cursor: Cursor?

    /// The order of tasks: by their row id, the order they were stored in.
    public enum SortOrder: String, Sendable, Hashable, Codable {
        /// The most recently stored task first.
        case newestFirst
        /// The first stored task first.
        case oldestFirst
    }

    /// A position in the tasks: the next page starts after it. Its text form (`t` and the row
    /// id) can be handed to a user or a command line and parsed back; a message cursor (`m…`)
    /// does not parse as one.
    public struct Cursor: Sendable, Hashable, Codable, LosslessStringConvertible {
        /// The row id of the last task of the page.
        public var lastID: Int64

        /// A cursor after the task with this row id.
        public init(lastID: Int64) {
            self.lastID = lastID
        }

        /// Parses the text form; `nil` for anything else.
        public init?(_ description: String) {
            guard description.hasPrefix("t"), let id = Int64(description.dropFirst()), id >= 0 else { return nil }
            self.lastID = id
        }

        /// The text form, `t<id>`; ``init(_:)`` parses it back.
        public var description: String { "t\(lastID)" }
    }

    /// Creates a query; every filter defaults to "everything".
    public init(
        hosts: [String] = [], paths: [String] = [], methods: [String] = [], statusCodes: ClosedRange<Int>? = nil,
        states: [NetworkTaskState] = [], urlText: TextSearch? = nil, isFailure: Bool? = nil,
        durations: ClosedRange<TimeInterval>? = nil, contentTypes: [String] = [], isResponseBodyRemoved: Bool? = nil,
        labels: [String] = [], sessions: [UUID] = [], since: Date? = nil,
        until: Date? = nil, order: SortOrder = .newestFirst, limit: Int = 100,
        cursor: Cursor? = nil, directions: [NetworkTaskDirection] = []
    ) {
        self.directions = directions
        self.hosts = hosts
        self.paths = paths
        self.methods = methods
        self.statusCodes = statusCodes
        self.states = states
        self.urlText = urlText
        self.isFailure = isFailure
        self.durations = durations
        self.contentTypes = contentTypes
        self.isResponseBodyRemoved = isResponseBodyRemoved
        self.labels = labels
        self.sessions = sessions
        self.since = since
        self.until = until
        self.order = order
        self.limit = limit
        self.cursor = cursor
    }
}

/// One page of ``LogStore/tasks(_:)`` results.
public struct TaskPage: Sendable, Hashable {
    /// The tasks, in the query's order.
    public var tasks: [NetworkTaskSummary]
    /// Where the next page starts; `nil` when this page is the last.
    public var nextCursor: TaskQuery.Cursor?
}

/// A network task as lists show it.
public struct NetworkTaskSummary: Sendable, Hashable, Codable, Identifiable {
    /// The store's row id (increases in the order tasks were stored).
    public var rowID: Int64
    /// The task's identity (``NetworkLogger`` task id).
    public var id: UUID
    /// The session that stored it.
    public var sessionID: UUID
    /// The label of its technical message.
    public var label: String
    /// When it started.
    public var createdAt: Date
    /// Data, download, upload, stream or WebSocket.
    public var taskType: NetworkTaskType
    /// Pending, success or failure.
    public var state: NetworkTaskState
    /// The HTTP method.
    public var method: String?
    /// The URL (redacted).
    public var url: String?
    /// The URL's host.
    public var host: String?
    /// The response status, when a response arrived.
    public var statusCode: Int?
    /// The error, when it failed with one.
    public var error: NetworkError?
    /// The response's content type.
    public var contentType: String?
    /// How long it took.
    public var duration: TimeInterval?
    /// Request and response body sizes in bytes (also when a body was too large to keep).
    public var requestBodySize: Int64
    /// The response body's size in bytes.
    public var responseBodySize: Int64
    /// Progress: units done and expected, while it runs.
    public var progress: NetworkProgress?
    /// A call this process made (outbound, the default) or a request it handled (inbound).
    public var direction: NetworkTaskDirection = .outbound
}

extension NetworkTaskSummary {
    /// Reads a summary as its encoding writes it, and as 0.5 wrote it (`tasks --json`), without
    /// `direction`: such a task is outbound, the only kind 0.5 stored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rowID = try container.decode(Int64.self, forKey: .rowID)
        id = try container.decode(UUID.self, forKey: .id)
        sessionID = try container.decode(UUID.self, forKey: .sessionID)
        label = try container.decode(String.self, forKey: .label)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        taskType = try container.decode(NetworkTaskType.self, forKey: .taskType)
        state = try container.decode(NetworkTaskState.self, forKey: .state)
        method = try container.decodeIfPresent(String.self, forKey: .method)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        host = try container.decodeIfPresent(String.self, forKey: .host)
        statusCode = try container.decodeIfPresent(Int.self, forKey: .statusCode)
        error = try container.decodeIfPresent(NetworkError.self, forKey: .error)
        contentType = try container.decodeIfPresent(String.self, forKey: .contentType)
        duration = try container.decodeIfPresent(TimeInterval.self, forKey: .duration)
        requestBodySize = try container.decode(Int64.self, forKey: .requestBodySize)
        responseBodySize = try container.decode(Int64.self, forKey: .responseBodySize)
        progress = try container.decodeIfPresent(NetworkProgress.self, forKey: .progress)
        direction = try container.decodeIfPresent(NetworkTaskDirection.self, forKey: .direction) ?? .outbound
    }
}

/// Everything stored about one network task: ``LogStore/task(id:)``.
public struct NetworkTaskDetails: Sendable, Hashable, Codable {
    /// The list fields.
    public var summary: NetworkTaskSummary
    /// The request head (method, URL, headers), redacted, without its body.
    public var request: NetworkRequest?
    /// The response head, redacted, without its body.
    public var response: NetworkResponse?
    /// The request body's key: read it with ``LogStore/blobData(forKey:)``; `nil` when none was
    /// stored.
    public var requestBodyKey: String?
    /// The response body's key, likewise.
    public var responseBodyKey: String?
    /// Whether the request body was larger than the size limit and not stored.
    public var isRequestBodyOverLimit: Bool
    /// Whether the response body was larger than the size limit and not stored.
    public var isResponseBodyOverLimit: Bool
    /// Whether the sweep removed the request body to keep blobs within their share of the
    /// store (``LogStore/Configuration/blobSizeShare``); the task's other fields stay.
    public var isRequestBodyRemoved = false
    /// Whether the sweep removed the response body, likewise.
    public var isResponseBodyRemoved = false
    /// The transactions (redirects, retries) with their timings.
    public var transactions: [NetworkTransactionMetrics]
    /// What the caller said about the task.
    public var taskDescription: String?
    /// Why decoding the response failed, when reported.
    public var decodingError: String?
    /// Extra facts (an image's `imageFormat`, `imageWidth`, `imageHeight`).
    public var metadata: [String: String]
    /// The stored JSON of parts that did not decode (written by another tool, or damaged), by
    /// part: `"request"`, `"response"`, `"metadata"`, `"transactions[<position>]"`. Such a part
    /// reads as absent (`nil`, empty, or left out of ``transactions``) and its text is kept here
    /// rather than lost; empty when everything decoded.
    public var undecodableJSON: [String: String] = [:]
}
