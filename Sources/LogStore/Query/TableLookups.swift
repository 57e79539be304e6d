import Foundation

/// The `labels` table, read whole (it is small) to name query results.
struct LabelNames {
    private var names: [Int64: String] = [:]
    private var ids: [String: Int64] = [:]

    init(connection: Connection) throws {
        let statement = try connection.prepare(Labels.allSQL)
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
        let statement = try connection.prepare(Threads.allSQL)
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
        let statement = try connection.prepare(Sessions.uuidsSQL)
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
