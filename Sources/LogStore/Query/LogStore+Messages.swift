import Foundation

extension LogStore {
    /// Messages matching `query`, one page at a time.
    ///
    /// Reads committed messages only: call ``flush()`` first to see what was just logged.
    ///
    /// - Throws: ``LogStoreError/closed`` after ``close()``; ``LogStoreError/database(_:)`` when SQLite fails.
    public func messages(_ query: MessageQuery) async throws -> MessagePage {
        try checkOpen()
        return try await core.read { connection in
            try Self.readMessages(query, connection: connection)
        }
    }

    /// How many messages match `query`'s filters (its order, limit and cursor are ignored).
    ///
    /// ```swift
    /// let errors = try await store.count(MessageQuery(levels: .error ... .critical))
    /// ```
    public func count(_ query: MessageQuery) async throws -> Int {
        try checkOpen()
        return try await core.read { connection in
            guard let built = try MessageQuerySQL.resolving(query, connection: connection) else { return 0 }
            return Int(try connection.integer(built.countSQL, built.countArguments) ?? 0)
        }
    }

    private static func readMessages(_ query: MessageQuery, connection: Connection) throws -> MessagePage {
        guard let built = try MessageQuerySQL.resolving(query, connection: connection) else {
            return MessagePage(messages: [], nextCursor: nil)
        }
        let labels = try LabelNames(connection: connection)
        let sessions = try SessionIdentifiers(connection: connection)
        let threads = try ThreadNames(connection: connection)
        let statement = try connection.prepare(built.sql)
        try statement.bind(built.arguments)
        var messages: [Message] = []
        while try statement.step() {
            messages.append(
                Message(
                    id: statement.int64(at: 0),
                    createdAt: Date(timeIntervalSince1970: statement.double(at: 1)),
                    level: Level(rawValue: Int16(clamping: statement.int64(at: 2))) ?? .critical,
                    label: labels.name(for: statement.int64(at: 3)),
                    text: statement.string(at: 4),
                    metadata: decodeMetadata(statement.optionalString(at: 5)),
                    file: statement.string(at: 6),
                    function: statement.string(at: 7),
                    line: statement.int(at: 8),
                    threadID: Int32(truncatingIfNeeded: statement.int64(at: 9)),
                    threadName: threads.name(session: statement.int64(at: 10), thread: statement.int64(at: 9)),
                    sessionID: sessions.uuid(for: statement.int64(at: 10))))
        }
        // The SQL asks for one row past the page (see `MessageQuerySQL`): a next page exists only
        // when that row came back, so the last page has no cursor even when it is full.
        let pageSize = max(1, query.limit)
        let hasNextPage = messages.count > pageSize
        if hasNextPage { messages.removeLast(messages.count - pageSize) }
        let next = hasNextPage ? messages.last.map { MessageQuery.Cursor(lastID: $0.id) } : nil
        return MessagePage(messages: messages, nextCursor: next)
    }

    /// Metadata JSON as written by the store; anything else another tool may have put there is
    /// kept as a single `_raw` string rather than lost.
    static func decodeMetadata(_ json: String?) -> Metadata {
        guard let json, !json.isEmpty else { return [:] }
        // One shared decoder: a new one per row cost an allocation and setup for every message.
        if let metadata = try? StoreJSON.decoder.decode(Metadata.self, from: Data(json.utf8)) {
            return metadata
        }
        return ["_raw": .string(json)]
    }
}

/// The `labels` table, read whole (it is small) to name query results.
struct LabelNames {
    private var names: [Int64: String] = [:]
    private var ids: [String: Int64] = [:]

    init(connection: Connection) throws {
        let statement = try connection.prepare("SELECT id, name FROM labels")
        while try statement.step() {
            let id = statement.int64(at: 0)
            let name = statement.string(at: 1)
            names[id] = name
            ids[name] = id
        }
    }

    /// The ids of the known names, each once: a label named twice must not become two index
    /// walks, which would return its messages twice.
    func ids(for names: [String]) -> [Int64] {
        var seen = Set<Int64>()
        return names.compactMap { ids[$0] }.filter { seen.insert($0).inserted }
    }
    func name(for id: Int64) -> String { names[id] ?? "" }
}

/// The `threads` table, read whole (a row per named thread and session).
struct ThreadNames {
    private var names: [Int64: [Int64: String]] = [:]

    init(connection: Connection) throws {
        let statement = try connection.prepare("SELECT session_id, thread_id, name FROM threads")
        while try statement.step() {
            names[statement.int64(at: 0), default: [:]][statement.int64(at: 1)] = statement.string(at: 2)
        }
    }

    func name(session: Int64, thread: Int64) -> String? { names[session]?[thread] }
}

/// The `sessions` table's ids, read whole (one row per process run).
struct SessionIdentifiers {
    private var uuids: [Int64: UUID] = [:]
    private var rowIDs: [UUID: Int64] = [:]

    init(connection: Connection) throws {
        let statement = try connection.prepare("SELECT id, uuid FROM sessions")
        while try statement.step() {
            let id = statement.int64(at: 0)
            guard let uuid = UUID(uuidString: statement.string(at: 1)) else { continue }
            uuids[id] = uuid
            rowIDs[uuid] = id
        }
    }

    func rowIDs(for uuids: [UUID]) -> [Int64] { uuids.compactMap { rowIDs[$0] } }
    func uuid(for id: Int64) -> UUID { uuids[id] ?? UUID(uuid: UUID.nilUUID) }
}
