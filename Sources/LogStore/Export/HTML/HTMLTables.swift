import Foundation

/// The labels and sessions the page's rows name by index: each label's text and each session's
/// details are written once, after the rows, instead of in every row.
struct HTMLTables {
    private(set) var labels: [String] = []
    private var labelIndexes: [String: Int] = [:]
    private(set) var sessionIDs: [UUID] = []
    private var sessionIndexes: [UUID: Int] = [:]

    /// The index of `label`, added on first sight.
    mutating func index(ofLabel label: String) -> Int {
        if let index = labelIndexes[label] { return index }
        labels.append(label)
        labelIndexes[label] = labels.count - 1
        return labels.count - 1
    }

    /// The index of `session`, added on first sight.
    mutating func index(ofSession session: UUID) -> Int {
        if let index = sessionIndexes[session] { return index }
        sessionIDs.append(session)
        sessionIndexes[session] = sessionIDs.count - 1
        return sessionIDs.count - 1
    }

    /// `{"labels":[…],"sessions":[…]}`: a session the store no longer describes (removed meanwhile,
    /// or from another tool) still gets an entry, with its id alone.
    func write(to json: inout ScriptJSON, describing sessions: [LogStore.Session]) {
        let known = Dictionary(sessions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        json.raw("{")
        json.key("labels")
        json.raw("[")
        for (index, label) in labels.enumerated() {
            if index > 0 { json.raw(",") }
            json.string(label)
        }
        json.raw("],")
        json.key("sessions")
        json.raw("[")
        for (index, id) in sessionIDs.enumerated() {
            if index > 0 { json.raw(",") }
            Self.write(id, known[id], to: &json)
        }
        json.raw("]}")
    }

    private static func write(_ id: UUID, _ session: LogStore.Session?, to json: inout ScriptJSON) {
        json.raw("{")
        json.key("id")
        json.string(id.uuidString.lowercased())
        if let session {
            json.raw(",")
            json.key("t")
            json.number(Milliseconds.since1970(session.startDate) ?? 0)
            json.raw(",")
            json.key("app")
            json.string(session.app.name)
            json.raw(",")
            json.key("version")
            json.string(session.app.version)
            json.raw(",")
            json.key("pid")
            json.number(Int(session.app.pid))
            json.raw(",")
            json.key("host")
            json.string(session.host.hostname)
            json.raw(",")
            json.key("os")
            json.string(session.host.osPrettyName.isEmpty ? session.host.osName : session.host.osPrettyName)
            json.raw(",")
            json.key("kernel")
            json.string(session.host.kernelVersion)
            json.raw(",")
            json.key("changes")
            json.raw("[")
            for (index, change) in session.hostChanges.enumerated() {
                if index > 0 { json.raw(",") }
                json.string(change)
            }
            json.raw("]")
        }
        json.raw("}")
    }
}
