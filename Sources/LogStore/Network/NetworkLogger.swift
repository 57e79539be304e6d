public import Foundation
import Synchronization

/// Records network tasks into a store as they happen: created, progress, data, metrics,
/// completed. Every call is synchronous and cheap (a lock and an append); nothing waits for disk.
///
/// ```swift
/// let logger = NetworkLogger(store: store, label: "payments-api",
///                            filter: URLFilter(excludedHosts: [.wildcard("*.internal")]))
/// let id = UUID()
/// logger.logTaskCreated(taskID: id, request: NetworkRequest(url: url, method: "POST", body: body))
/// logger.logDataReceived(taskID: id, data: chunk)
/// logger.logTaskCompleted(taskID: id, response: NetworkResponse(url: url, statusCode: 201), error: nil)
/// ```
///
/// Calls may come in any order: a completion without a creation stores the task all the same,
/// progress after completion and a second creation of the same task are ignored. Secrets are
/// redacted by the store (``LogStore/Configuration/redaction``) before anything is stored or
/// published.
///
/// The logger remembers each created task until it completes. A task that never completes (its
/// completion was never reported) is forgotten once it is older than ``openTaskTimeout`` or when
/// more than ``maxOpenTasks`` are open (the oldest first), and counted in
/// ``evictedTaskCount``: its later calls are treated as those of a task never created. The
/// bodies the open tasks buffer are bounded too: past ``maxOpenTaskBytes`` the oldest tasks are
/// forgotten the same way. So the table stays bounded in count and in bytes.
public final class NetworkLogger: Sendable {
    /// The store tasks go to.
    public let store: LogStore
    /// The label of the tasks' technical messages. Default: `"network"`.
    public let label: String
    /// Which URLs are recorded.
    public let filter: URLFilter
    /// The most tasks remembered between creation and completion. Default: 10,000.
    public let maxOpenTasks: Int
    /// How long a created task is remembered without completing. Default: 1 hour.
    public let openTaskTimeout: Duration
    /// The most body bytes (request bodies and response chunks) the open tasks may buffer
    /// together. Default: 64 MiB.
    public let maxOpenTaskBytes: Int
    private let state = Mutex(OpenTasks())
    /// The store's timer, which ``openTaskTimeout`` runs on.
    private let timer: StoreTimer

    /// The open tasks, and their creation order for eviction.
    private struct OpenTasks {
        var tasks: [UUID: Entry] = [:]
        /// Task ids in creation order, from `head` on; an entry whose serial no longer matches
        /// its task's (completed, or created again) is stale and skipped.
        var order: [(id: UUID, serial: UInt64)] = []
        var head = 0
        var serial: UInt64 = 0
        var evicted = 0
        /// Body bytes the open tasks hold.
        var bytes = 0
    }

    private struct Entry {
        var record: TaskRecord
        var serial: UInt64
        /// On the store's ``StoreTimer``.
        var createdAt: Duration
        /// Body bytes this task holds.
        var bytes = 0
    }

    /// What the logger knows about a task between its creation and completion.
    private enum TaskRecord {
        case open(OpenTask)
        /// Filtered out: its later calls are ignored too.
        case excluded
    }

    private struct OpenTask {
        var type: NetworkTaskType
        var direction: NetworkTaskDirection = .outbound
        var createdAt: Date
        var request: NetworkRequest
        var taskDescription: String?
        var data = Data()
        /// Bytes received, also past the body size limit (then `data` stops growing).
        var receivedBytes: Int64 = 0
        var metrics: NetworkMetrics?
        var decodingError: String?
        /// Given to the creation and the completion event alike (a task never created has none).
        var creationHead = CreationHeadLink()
    }

    /// Creates a logger for `store`.
    ///
    /// - Parameters:
    ///   - store: where tasks are stored.
    ///   - label: the label of the tasks' technical messages.
    ///   - filter: which URLs to record (default: all).
    ///   - maxOpenTasks: the most tasks remembered between creation and completion; past it the
    ///     oldest are forgotten (``evictedTaskCount``). Default: 10,000.
    ///   - openTaskTimeout: how long a task is remembered without completing. Default: 1 hour.
    ///   - maxOpenTaskBytes: the most body bytes the open tasks buffer together; past it the
    ///     oldest are forgotten. Default: 64 MiB.
    public init(
        store: LogStore, label: String = "network", filter: URLFilter = URLFilter(), maxOpenTasks: Int = 10_000,
        openTaskTimeout: Duration = .seconds(3600), maxOpenTaskBytes: Int = 64 << 20
    ) {
        self.store = store
        self.label = label
        self.filter = filter
        self.maxOpenTasks = max(1, maxOpenTasks)
        self.openTaskTimeout = openTaskTimeout
        self.maxOpenTaskBytes = max(0, maxOpenTaskBytes)
        self.timer = store.configuration.timeSource.timer
    }

    /// Tasks forgotten before they completed (too old, or too many open), since the logger was made.
    public var evictedTaskCount: Int { state.withLock { $0.evicted } }

    /// Tasks created and not yet completed (nor evicted).
    public var openTaskCount: Int { state.withLock { $0.tasks.count } }

    /// Body bytes the open tasks buffer now: at most ``maxOpenTaskBytes``, plus those of the task
    /// logged last (spared by the budget; its body is held to the store's body size limit).
    public var openTaskBytes: Int { state.withLock { $0.bytes } }

    /// Remembers a new task and forgets the ones past the bounds; `false` when it is known.
    private func insert(_ taskID: UUID, _ record: TaskRecord) -> Bool {
        let now = timer.elapsed()
        return state.withLock { state -> Bool in
            guard state.tasks[taskID] == nil else { return false }
            state.serial += 1
            var bytes = 0
            if case .open(let task) = record { bytes = task.request.body?.count ?? 0 }
            state.tasks[taskID] = Entry(record: record, serial: state.serial, createdAt: now, bytes: bytes)
            state.bytes += bytes
            state.order.append((taskID, state.serial))
            evict(&state, now: now, sparing: taskID)
            return true
        }
    }

    /// Forgets the oldest tasks past the bounds. The bytes of `spared` (the task being logged right
    /// now) do not count toward the byte budget: one large body must not push out every other
    /// task, and it is itself held to ``LogStore/Configuration/bodySizeLimit``.
    private func evict(_ state: inout OpenTasks, now: Duration, sparing spared: UUID) {
        let sparedBytes = state.tasks[spared]?.bytes ?? 0
        var position = state.head
        while position < state.order.count {
            let (id, serial) = state.order[position]
            guard let entry = state.tasks[id], entry.serial == serial else {
                // Stale (completed or evicted): dropped from the front, skipped elsewhere.
                if position == state.head { state.head += 1 }
                position += 1
                continue
            }
            let isOverCount = state.tasks.count > maxOpenTasks
            let isTooOld = now - entry.createdAt > openTaskTimeout
            let isOverBytes = state.bytes - sparedBytes > maxOpenTaskBytes
            if id == spared && !isOverCount && !isTooOld {
                // Spared by the byte budget: the next oldest goes instead, if the budget says so.
                guard isOverBytes else { break }
                position += 1
                continue
            }
            guard isOverCount || isOverBytes || isTooOld else { break }
            state.tasks[id] = nil
            state.bytes -= entry.bytes
            state.evicted += 1
            if position == state.head { state.head += 1 }
            position += 1
        }
        // Completed tasks leave stale entries behind: rebuild the order before they outnumber
        // the open tasks.
        if state.order.count - state.head > 2 * state.tasks.count + 1_024 {
            state.order = state.tasks.map { ($0.key, $0.value.serial) }.sorted { $0.serial < $1.serial }
            state.head = 0
        } else if state.head > 1_024 && state.head * 2 > state.order.count {
            state.order.removeFirst(state.head)
            state.head = 0
        }
    }

    /// A task started.
    ///
    /// - Parameters:
    ///   - taskID: the task's identity, shared by all its calls.
    ///   - type: data (default), download, upload, stream or WebSocket.
    ///   - request: the request as sent (or, inbound, as received), with its body when known.
    ///   - createdAt: when it started. Default: now.
    ///   - taskDescription: a description of the task.
    ///   - direction: ``NetworkTaskDirection/outbound`` (default) for a call this process makes,
    ///     ``NetworkTaskDirection/inbound`` for a request it is handling; kept until completion.
    public func logTaskCreated(
        taskID: UUID, type: NetworkTaskType = .data, request: NetworkRequest, createdAt: Date = Date(),
        taskDescription: String? = nil, direction: NetworkTaskDirection = .outbound
    ) {
        let isAllowed = filter.allows(request.url)
        let creationHead = CreationHeadLink(head: isAllowed ? CreationHead() : nil)
        let isNew = insert(
            taskID,
            isAllowed
                ? .open(OpenTask(
                    type: type, direction: direction, createdAt: createdAt, request: request,
                    taskDescription: taskDescription, creationHead: creationHead))
                : .excluded)
        guard isNew, isAllowed else { return }
        var created = LogStore.Event.NetworkTaskCreated(
            taskID: taskID, taskType: type, createdAt: createdAt, request: request, label: label,
            taskDescription: taskDescription, direction: direction)
        created.creationHead = creationHead
        store.core.ingest(.networkTaskCreated(created))
    }

    /// The task's progress: `completed` of `total` units (bytes for data tasks; -1 when unknown).
    public func logProgress(taskID: UUID, completed: Int64, total: Int64) {
        let isOpen = state.withLock { state -> Bool in
            if case .open? = state.tasks[taskID]?.record { return true }
            return false
        }
        guard isOpen else { return }
        store.core.ingest(.networkTaskProgressUpdated(.init(taskID: taskID, completed: completed, total: total)))
    }

    /// A chunk of the response body arrived; chunks accumulate until completion (up to the
    /// store's ``LogStore/Configuration/bodySizeLimit``, past which only the size counts).
    public func logDataReceived(taskID: UUID, data: Data) {
        let limit = store.configuration.bodySizeLimit
        updateOpenTask(taskID) { task in
            task.receivedBytes += Int64(data.count)
            if task.data.count + data.count <= limit + 1 { task.data.append(data) }
        }
    }

    /// The task's metrics were collected.
    public func logMetrics(taskID: UUID, metrics: NetworkMetrics) {
        updateOpenTask(taskID) { $0.metrics = metrics }
    }

    /// Decoding the task's response failed (recorded with the task when it completes, or on
    /// the stored task if it already has).
    public func logDecodingError(taskID: UUID, error: any Error) {
        let description = String(describing: error)
        updateOpenTask(taskID) { $0.decodingError = description }
    }

    /// Changes an open task in place. The record leaves the dictionary while it changes, so
    /// its body buffer is uniquely referenced and a chunk appends instead of copying all the
    /// bytes received so far.
    private func updateOpenTask(_ taskID: UUID, _ change: (inout OpenTask) -> Void) {
        let now = timer.elapsed()
        state.withLock { state in
            guard var entry = state.tasks.removeValue(forKey: taskID) else { return }
            guard case .open(var task) = entry.record else {
                state.tasks[taskID] = entry
                return
            }
            entry.record = .excluded  // drops the entry's reference to the body buffer
            change(&task)
            let bytes = task.data.count + (task.request.body?.count ?? 0)
            state.bytes += bytes - entry.bytes
            entry.bytes = bytes
            entry.record = .open(task)
            state.tasks[taskID] = entry
            // Checked on every change, not only when a task starts: an idle logger's stale
            // tasks go as soon as it is used again, and growing bodies are held to the budget.
            evict(&state, now: now, sparing: taskID)
        }
    }

    /// The task finished.
    ///
    /// - Parameters:
    ///   - taskID: the id the task was created with (or a new one, for a task whose creation was not logged).
    ///   - completedAt: when it finished; default now. Its duration runs from creation to here.
    ///   - response: the response, when one arrived.
    ///   - error: the error it failed with.
    ///   - responseBody: the whole body, when it was not reported with ``logDataReceived(taskID:data:)``.
    ///   - request: the request, for a task whose creation was not logged.
    ///   - type: the task type, for a task whose creation was not logged.
    ///   - direction: the direction, for a task whose creation was not logged or was forgotten
    ///     (past ``openTaskTimeout``, ``maxOpenTasks`` or ``maxOpenTaskBytes``); a task still
    ///     open keeps the one it was created with. Default nil, not known: a forgotten task keeps
    ///     the direction stored at its creation, and a task never seen is stored as
    ///     ``NetworkTaskDirection/outbound``.
    public func logTaskCompleted(
        taskID: UUID, response: NetworkResponse?, error: (any Error)?, responseBody: Data? = nil,
        request: NetworkRequest? = nil, type: NetworkTaskType = .data, completedAt: Date = Date(),
        direction: NetworkTaskDirection? = nil
    ) {
        let record = state.withLock { state -> TaskRecord? in
            guard let entry = state.tasks.removeValue(forKey: taskID) else { return nil }
            state.bytes -= entry.bytes
            return entry.record
        }
        let task: OpenTask
        // Nil for a task not open here: it may have been created and forgotten, and its stored
        // creation knows the direction better than a default would.
        let knownDirection: NetworkTaskDirection?
        switch record {
        case .excluded?:
            return
        case .open(let open)?:
            task = open
            knownDirection = open.direction
        case nil:
            // Completion without creation: store what this call knows.
            let request = request ?? NetworkRequest(url: response?.url)
            guard filter.allows(request.url) else { return }
            task = OpenTask(type: type, createdAt: completedAt, request: request)
            knownDirection = direction
        }
        // Past the size limit the chunks stopped accumulating: keep the size, not a cut body.
        let isOverLimit = task.receivedBytes > Int64(store.configuration.bodySizeLimit)
        let body = responseBody ?? (task.data.isEmpty || isOverLimit ? nil : task.data)
        var completed = LogStore.Event.NetworkTaskCompleted(
            taskID: taskID, taskType: task.type, createdAt: task.createdAt,
            duration: max(0, completedAt.timeIntervalSince(task.createdAt)),
            request: task.request, response: response, error: error.map { NetworkError($0) },
            requestBody: task.request.body, responseBody: body, metrics: task.metrics, label: label,
            taskDescription: task.taskDescription, decodingError: task.decodingError, direction: knownDirection)
        if responseBody == nil, isOverLimit { completed.responseBodySize = task.receivedBytes }
        completed.creationHead = task.creationHead
        store.core.ingest(.networkTaskCompleted(completed))
    }
}
