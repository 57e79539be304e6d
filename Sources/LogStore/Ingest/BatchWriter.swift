import Foundation

/// The writer thread's side of the database: the write connection, its cached statements, and
/// the caches that turn events into rows. Confined to the writer thread (reached only through
/// ``StoreWriter``).
final class BatchWriter {
    let connection: Connection
    let sessionRowID: Int64
    private var labelIDs: [String: Int64] = [:]
    /// Thread names already recorded in `threads` for this session.
    private var threadNames: [Int32: String] = [:]
    /// Reused for every message's metadata JSON, so encoding allocates nothing once warm.
    private var metadataBuffer: [UInt8] = []
    /// Events whose commit failed, kept (already passed through `willHandleEvent`) for the retry.
    var retry: [LogStore.Event?] = []
    var retryLastTicket: UInt64 = 0
    /// Dropped events already reported in a stored notice.
    var reportedDropCount: UInt64 = 0

    static let insertMessageSQL = """
        INSERT INTO messages (created_at, session_id, level, label_id, text, metadata, file, function, line,
                              thread_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    init(connection: Connection, sessionRowID: Int64) {
        self.connection = connection
        self.sessionRowID = sessionRowID
    }

    /// Inserts events in one transaction (skipping the holes the overflow policy left); on
    /// failure nothing is kept and the caches that could point at rolled-back rows are cleared.
    func commit(_ events: [LogStore.Event?], dropNotice: LogStore.Event.MessageCreated?) throws {
        do {
            try connection.transaction {
                if let dropNotice { try insert(dropNotice) }
                for case let event? in events {
                    switch event {
                    case .messageStored(let message): try insert(message)
                    }
                }
            }
        } catch {
            resetCaches()
            throw error
        }
    }

    private func insert(_ message: LogStore.Event.MessageCreated) throws {
        let labelID = try labelID(for: message.label)
        let statement = try connection.cachedStatement(Self.insertMessageSQL)
        statement.bind(message.createdAt.timeIntervalSince1970, at: 1)
        statement.bind(sessionRowID, at: 2)
        statement.bind(Int64(message.level.rawValue), at: 3)
        statement.bind(labelID, at: 4)
        statement.bind(message.message, at: 5)
        if let metadata = message.metadata, !metadata.isEmpty {
            metadataBuffer.removeAll(keepingCapacity: true)
            MetadataJSON.write(metadata, to: &metadataBuffer)
            metadataBuffer.withUnsafeBytes { statement.bindText($0, at: 6) }
        }
        statement.bind(Self.lastPathComponent(message.file), at: 7)
        statement.bind(message.function, at: 8)
        statement.bind(Int64(truncatingIfNeeded: message.line), at: 9)
        statement.bind(Int64(message.threadID), at: 10)
        try statement.run()
        if let name = message.threadName, threadNames[message.threadID] != name {
            try recordThreadName(name, threadID: message.threadID)
        }
    }

    private func recordThreadName(_ name: String, threadID: Int32) throws {
        let statement = try connection.cachedStatement(
            "INSERT OR REPLACE INTO threads (session_id, thread_id, name) VALUES (?, ?, ?)")
        statement.bind(sessionRowID, at: 1)
        statement.bind(Int64(threadID), at: 2)
        statement.bind(name, at: 3)
        try statement.run()
        threadNames[threadID] = name
    }

    private func labelID(for label: String) throws -> Int64 {
        if let id = labelIDs[label] { return id }
        let insert = try connection.cachedStatement("INSERT OR IGNORE INTO labels (name) VALUES (?)")
        insert.bind(label, at: 1)
        try insert.run()
        let select = try connection.cachedStatement("SELECT id FROM labels WHERE name = ?")
        select.bind(label, at: 1)
        defer { select.reset() }
        guard try select.step() else {
            throw DatabaseError(extendedCode: 1, message: "label row missing after insert", sql: select.sql)
        }
        let id = select.int64(at: 0)
        labelIDs[label] = id
        return id
    }

    /// Forgets cached row ids (after rows were deleted outside the insert path).
    func resetCaches() {
        labelIDs.removeAll()
        threadNames.removeAll()
    }

    static func lastPathComponent(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }
}
