/// One message as the page holds it: an array, not an object, so 100k messages stay compact:
///
/// `[id, time (ms), level (0…6), label index, session index, text, source, thread, metadata]`
///
/// where source is `"file:line function"` (`""` for a network task's message), thread is
/// `"name #id"` (or `""`) and metadata an object, or `0` when empty.
enum HTMLMessageRow {
    static func write(_ message: LogStore.Message, tables: inout HTMLTables, to json: inout ScriptJSON) {
        json.raw("[")
        json.number(message.id)
        json.raw(",")
        json.number(Milliseconds.since1970(message.createdAt) ?? 0)
        json.raw(",")
        json.number(Int(message.level.rawValue))
        json.raw(",")
        json.number(tables.index(ofLabel: message.label))
        json.raw(",")
        json.number(tables.index(ofSession: message.sessionID))
        json.raw(",")
        json.string(message.text)
        json.raw(",")
        json.string(source(of: message))
        json.raw(",")
        json.string(thread(of: message))
        json.raw(",")
        if message.metadata.isEmpty { json.raw("0") } else { json.metadata(message.metadata) }
        json.raw("]")
    }

    private static func source(of message: LogStore.Message) -> String {
        guard let file = message.file, !file.isEmpty else { return "" }
        var source = file
        if let line = message.line, line > 0 { source += ":\(line)" }
        if let function = message.function, !function.isEmpty { source += " \(function)" }
        return source
    }

    private static func thread(of message: LogStore.Message) -> String {
        switch (message.threadName, message.threadID) {
        case (let name?, let id?) where !name.isEmpty: "\(name) #\(id)"
        case (_, let id?): "#\(id)"
        case (let name?, nil): name
        case (nil, nil): ""
        }
    }
}
