import Foundation

/// The `sessions` table read as ``LogStore/Session`` values.
enum SessionRows {
    /// Every session, oldest first, each with what changed on the host since the one before it.
    static func all(_ connection: Connection) throws -> [LogStore.Session] {
        let statement = try connection.prepare(Sessions.allSQL)
        var sessions: [LogStore.Session] = []
        var previous: HostSnapshot?
        while try statement.step() {
            guard let id = UUID(uuidString: statement.string(at: 0)) else { continue }
            let app = try StoreJSON.decoder.decode(AppSnapshot.self, from: Data(statement.string(at: 2).utf8))
            let host = try StoreJSON.decoder.decode(HostSnapshot.self, from: Data(statement.string(at: 3).utf8))
            sessions.append(LogStore.Session(
                id: id, startDate: Date(timeIntervalSince1970: statement.double(at: 1)), app: app, host: host,
                hostChanges: previous.map { host.changes(since: $0) } ?? []))
            previous = host
        }
        return sessions
    }
}
