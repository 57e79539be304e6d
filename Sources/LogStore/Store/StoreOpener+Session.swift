import Foundation

/// This process's session row, and what the previous session's host says changed.
extension StoreOpener {
    static func previousSessionHost(_ connection: Connection) throws -> HostSnapshot? {
        guard let json = try connection.text(Sessions.latestHostSQL) else { return nil }
        // A snapshot another tool rewrote is only a lost comparison, not a reason to refuse to open.
        return try? StoreJSON.decoder.decode(HostSnapshot.self, from: Data(json.utf8))
    }

    static func insertSession(
        _ session: LogStore.Session, into connection: Connection, history: HistoryRecorder?
    ) throws -> SessionRecord {
        var record = try unrecordedSession(session)
        try connection.transaction(.immediate) {
            // Counted like every writer transaction: a WAL holding only this still names its store.
            try connection.execute(StoreIdentity.countCommitSQL)
            try record.insert(into: connection)
            history?.record(.session, .insert, id: record.rowID)
            try history?.flush(connection)
        }
        return record
    }

    /// The session's row, not yet in the database (``LogStore/Configuration/recordsSessionOnOpen``):
    /// the writer inserts it before its first commit.
    static func unrecordedSession(_ session: LogStore.Session) throws -> SessionRecord {
        SessionRecord(
            rowID: SessionRecord.unrecorded, uuid: session.id.uuidString, startedAt: session.startDate.timeIntervalSince1970,
            app: String(decoding: try StoreJSON.compactEncoder.encode(session.app), as: UTF8.self),
            host: String(decoding: try StoreJSON.compactEncoder.encode(session.host), as: UTF8.self))
    }
}
