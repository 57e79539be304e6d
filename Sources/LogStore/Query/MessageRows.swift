import Foundation

/// The `messages` rows a ``MessageQuery`` selects, read into ``Message`` values (the SQL is
/// built by ``MessageQuerySQL``).
enum MessageRows {
    /// One page of the messages `query` selects.
    static func page(_ query: MessageQuery, connection: Connection) throws -> MessagePage {
        guard let built = try MessageQuerySQL.resolving(query, connection: connection) else {
            return MessagePage(messages: [], nextCursor: nil)
        }
        let labels = try LabelNames(connection: connection)
        let sessions = try SessionIdentifiers(connection: connection)
        let threads = try ThreadNames(connection: connection)
        let statement = try connection.prepare(built.sql)
        try statement.bind(built.arguments)
        var messages: [LogStore.Message] = []
        while try statement.step() {
            messages.append(
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

    /// How many messages match `query`'s filters (its order, limit and cursor are ignored).
    static func count(_ query: MessageQuery, connection: Connection) throws -> Int {
        guard let built = try MessageQuerySQL.resolving(query, connection: connection) else { return 0 }
        return Int(try connection.integer(built.countSQL, built.countArguments) ?? 0)
    }

    /// SQL selecting `id, created_at, level, label_id` of every message `query`'s filters match
    /// (its order, limit and cursor are ignored), with its arguments; `nil` when nothing can match.
    static func matchingRowsSQL(
        _ query: MessageQuery, connection: Connection
    ) throws -> (sql: String, arguments: [DatabaseValue])? {
        guard let built = try MessageQuerySQL.resolving(query, connection: connection) else { return nil }
        return (built.matchingSQL, built.matchingArguments)
    }
}
