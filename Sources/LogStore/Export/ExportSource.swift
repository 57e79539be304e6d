import Foundation

/// The rows an export's options select, read from one connection inside one read transaction
/// (the caller's), so every format writes a consistent snapshot while the store keeps logging.
/// Rows come oldest first, a page at a time: memory stays bounded whatever the store's size.
struct ExportSource {
    let connection: Connection
    let options: ExportOptions
    /// Reads a body by its hex key (decompressed and checked), from the store's files or an archive.
    let readBody: (String, Connection) throws -> Data?
    /// Rows read per query.
    static let pageSize = 1_000

    /// How many messages the export holds.
    func messageCount() throws -> Int {
        guard let query = options.messageQuery(pageSize: Self.pageSize) else { return 0 }
        return try MessageRows.count(query, connection: connection)
    }

    /// How many network tasks the export holds.
    func taskCount() throws -> Int {
        guard let query = options.taskQuery(pageSize: Self.pageSize) else { return 0 }
        return try TaskRows.count(query, connection: connection)
    }

    /// Calls `body` with every selected message, oldest first; returns how many there were.
    @discardableResult
    func forEachMessage(_ body: (LogStore.Message) throws -> Void) throws -> Int {
        guard var query = options.messageQuery(pageSize: Self.pageSize) else { return 0 }
        var count = 0
        while true {
            let page = try MessageRows.page(query, connection: connection)
            for message in page.messages {
                try body(message)
                count += 1
            }
            guard let next = page.nextCursor else { return count }
            query.cursor = next
        }
    }

    /// The tables message rows name by id (labels, sessions, threads), read once.
    func rowTables() throws -> MessageReader {
        try MessageReader(connection: connection)
    }

    /// Calls `body` with every selected task, oldest first; returns how many there were.
    @discardableResult
    func forEachTask(_ body: (NetworkTaskSummary) throws -> Void) throws -> Int {
        guard var query = options.taskQuery(pageSize: Self.pageSize) else { return 0 }
        var count = 0
        while true {
            let page = try TaskRows.page(query, connection: connection)
            for task in page.tasks {
                try body(task)
                count += 1
            }
            guard let next = page.nextCursor else { return count }
            query.cursor = next
        }
    }

    /// Everything stored about a task (its heads, metrics and body keys).
    func details(of id: UUID) throws -> NetworkTaskDetails? {
        try TaskRows.details(id, connection: connection)
    }

    /// A body by its hex key; `nil` when it is not stored (removed by a sweep, or over the limit).
    func body(forKey key: String) throws -> Data? {
        try readBody(key, connection)
    }

    /// The sessions the export covers: those named in the options (every session when none are).
    func sessions() throws -> [LogStore.Session] {
        let all = try SessionRows.all(connection)
        guard !options.sessions.isEmpty else { return all }
        let wanted = Set(options.sessions)
        return all.filter { wanted.contains($0.id) }
    }
}

/// What a streaming format wrote, for the ``ExportReport``.
struct ExportCounts {
    var messages = 0
    var tasks = 0
    var blobs = 0
    var sessions = 0
}
