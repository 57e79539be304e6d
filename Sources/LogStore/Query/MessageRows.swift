import Foundation

/// The `messages` rows a ``MessageQuery`` selects, read into ``Message`` values (the SQL is
/// built by ``MessageQuerySQL``, or ``MessageSearchSQL`` for what the full-text index serves).
enum MessageRows {
    /// One page of the messages `query` selects.
    static func page(_ query: MessageQuery, connection: Connection) throws -> MessagePage {
        if query.cursor?.rankOffset != nil, query.order != .relevance || query.text?.isEmpty ?? true {
            throw LogStoreError.invalidArgument(
                "the cursor \(query.cursor?.description ?? "") is a position among ranked results: it continues a relevance-ordered text search only")
        }
        guard let built = try MessageQuerySQL.resolving(query, connection: connection) else {
            return MessagePage(messages: [], nextCursor: nil)
        }
        if let search = try MessageSearchSQL(query) {
            return try MessageSearch.page(query, built, search, connection: connection)
        }
        let reader = try MessageReader(connection: connection)
        let statement = try connection.prepare(built.sql)
        try statement.bind(built.arguments)
        var messages: [LogStore.Message] = []
        while try statement.step() {
            messages.append(reader.message(statement))
        }
        return page(messages, limit: query.limit)
    }

    /// The page of `messages` (read one past the page: see ``MessageQuerySQL``), with the
    /// cursor of the next one.
    static func page(_ messages: [LogStore.Message], limit: Int) -> MessagePage {
        // A next page exists only when the row past the page came back, so the last page has no
        // cursor even when it is full.
        var messages = messages
        let pageSize = max(1, limit)
        let hasNextPage = messages.count > pageSize
        if hasNextPage { messages.removeLast(messages.count - pageSize) }
        let next = hasNextPage ? messages.last.map { MessageQuery.Cursor(lastID: $0.id) } : nil
        return MessagePage(messages: messages, nextCursor: next)
    }

    /// How many messages match `query`'s filters (its order, limit and cursor are ignored).
    static func count(_ query: MessageQuery, connection: Connection) throws -> Int {
        guard let built = try MessageQuerySQL.resolving(query, connection: connection) else { return 0 }
        if let search = try MessageSearchSQL(query) {
            return try MessageSearch.count(query, built, search, connection: connection)
        }
        return Int(try connection.integer(built.countSQL, built.countArguments) ?? 0)
    }

    /// SQL selecting `id, created_at, level, label_id` of every message `query`'s filters match
    /// (its order, limit and cursor are ignored), with its arguments; `nil` when nothing can match.
    ///
    /// A text search is matched with the index's syntax through the same two parts as a page
    /// (``MessageSearch/matchingIDs``), so those rows come back as an id list.
    static func matchingRowsSQL(
        _ query: MessageQuery, connection: Connection
    ) throws -> (sql: String, arguments: [DatabaseValue])? {
        guard let built = try MessageQuerySQL.resolving(query, connection: connection) else { return nil }
        guard let search = try MessageSearchSQL(query) else { return (built.matchingSQL, built.matchingArguments) }
        let ids = try MessageSearch.matchingIDs(query, built, search, connection: connection)
        guard !ids.isEmpty else { return nil }
        return (
            Messages.summaryByIDsSQL,
            [.text("[" + ids.map(String.init).joined(separator: ",") + "]")]
        )
    }
}

/// Turns `messages` rows (``MessageQuerySQL/columns``) into ``LogStore/Message`` values, with
/// the names of their labels, sessions and threads read once per query.
struct MessageReader {
    let labels: LabelNames
    let sessions: SessionIdentifiers
    let threads: ThreadNames

    init(connection: Connection) throws {
        labels = try LabelNames(connection: connection)
        sessions = try SessionIdentifiers(connection: connection)
        threads = try ThreadNames(connection: connection)
    }

    func message(_ statement: Statement) -> LogStore.Message {
        LogStore.Message(
            id: statement.int64(at: 0),
            createdAt: Date(timeIntervalSince1970: statement.double(at: 1)),
            level: LogStore.Level(rawValue: Int16(clamping: statement.int64(at: 2))) ?? .critical,
            label: labels.name(for: statement.int64(at: 3)),
            text: statement.string(at: 4),
            metadata: LogStore.decodeMetadata(statement.optionalString(at: 5)),
            file: statement.optionalString(at: 6),
            function: statement.optionalString(at: 7),
            line: statement.isNull(at: 8) ? nil : statement.int(at: 8),
            threadID: statement.isNull(at: 9) ? nil : Int32(truncatingIfNeeded: statement.int64(at: 9)),
            threadName: threads.name(session: statement.int64(at: 10), thread: statement.int64(at: 9)),
            sessionID: sessions.uuid(for: statement.int64(at: 10)))
    }
}
