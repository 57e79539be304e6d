import Foundation

/// One `messages` row of a page (the columns of ``MessageQuerySQL/columns``), read in place from
/// the statement: for readers that write each row straight out (the exports) rather than keep a
/// ``LogStore/Message``. Its text columns are SQLite's own bytes, valid until the next row.
///
/// Each accessor reads its column as ``MessageReader`` does, so a row written from here says
/// what the ``LogStore/Message`` of the same row says.
struct MessageRow {
    let statement: Statement

    var id: Int64 { statement.int64(at: 0) }
    var createdAt: Date { Date(timeIntervalSince1970: statement.double(at: 1)) }
    var level: LogStore.Level { LogStore.Level(rawValue: Int16(clamping: statement.int64(at: 2))) ?? .critical }
    var labelID: Int64 { statement.int64(at: 3) }
    /// The text's bytes (empty for NULL, as ``LogStore/Message/text`` reads it).
    var unsafeText: UnsafeBufferPointer<UInt8> { statement.unsafeText(at: 4) ?? UnsafeBufferPointer(start: nil, count: 0) }
    /// The stored metadata JSON; `nil` for NULL.
    var unsafeMetadataJSON: UnsafeBufferPointer<UInt8>? { statement.unsafeText(at: 5) }
    var unsafeFile: UnsafeBufferPointer<UInt8>? { statement.unsafeText(at: 6) }
    var unsafeFunction: UnsafeBufferPointer<UInt8>? { statement.unsafeText(at: 7) }
    var line: Int? { statement.isNull(at: 8) ? nil : statement.int(at: 8) }
    var threadID: Int32? { statement.isNull(at: 9) ? nil : Int32(truncatingIfNeeded: statement.int64(at: 9)) }
    /// The thread column as the thread-name lookup takes it (0 for NULL).
    var threadKey: Int64 { statement.int64(at: 9) }
    var sessionRowID: Int64 { statement.int64(at: 10) }
}

/// What ``MessageRows/forEachRow(_:connection:_:)`` read of one page.
struct MessageRowPage {
    /// The rows handed over.
    var count: Int
    /// Where the next page starts; `nil` on the last.
    var nextCursor: MessageQuery.Cursor?
}

extension MessageRows {
    /// Calls `body` with each row of one page of `query` (the rows ``page(_:connection:)`` would
    /// make messages of, in its order), without making a ``LogStore/Message`` of any; `nil`,
    /// and no call, for a query the full-text index serves (a text search, a metadata filter):
    /// read those with ``page(_:connection:)``.
    static func forEachRow(
        _ query: MessageQuery, connection: Connection, _ body: (MessageRow) throws -> Void
    ) throws -> MessageRowPage? {
        // A ranked position is refused, or continued, by the index's path.
        if query.cursor?.rankOffset != nil { return nil }
        guard let built = try MessageQuerySQL.resolving(query, connection: connection) else {
            return MessageRowPage(count: 0, nextCursor: nil)
        }
        guard try MessageSearchSQL(query) == nil else { return nil }
        let statement = try connection.prepare(built.sql)
        try statement.bind(built.arguments)
        // The SQL reads one row past the page: whether it comes back tells if another follows.
        let pageSize = max(1, query.limit)
        var count = 0
        var lastID: Int64 = 0
        while try statement.step() {
            guard count < pageSize else { return MessageRowPage(count: count, nextCursor: .init(lastID: lastID)) }
            let row = MessageRow(statement: statement)
            lastID = row.id
            try body(row)
            count += 1
        }
        return MessageRowPage(count: count, nextCursor: nil)
    }
}
