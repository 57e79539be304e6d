import Foundation

/// The `.har` format: HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) of the network
/// tasks the options select; messages have no place in HAR.
///
/// Written as it is read, one entry at a time (each with its bodies, read only then), so memory
/// holds one task whatever the export's size. `entries` comes before `pages`: the pages (one per
/// session, each entry's `pageref`) are known only once every entry is written, and JSON readers
/// do not mind the order of an object's members.
enum HARExport {
    static func write(_ source: ExportSource, to output: ExportOutput, progress: ExportProgressReporter) throws -> ExportCounts {
        var counts = ExportCounts()
        var json = HARJSONWriter()
        json.beginObject()
        json.beginObject("log")
        json.field("version", "1.2")
        json.beginObject("creator")
        json.field("name", "LogStore")
        json.field("version", LogStore.Version.library.description)
        json.endObject()
        json.beginArray("entries")
        // The sessions in the order their first task comes, with that task's date for a session
        // whose row is missing.
        var sessionOrder: [UUID] = []
        var firstTaskDates: [UUID: Date] = [:]
        counts.tasks = try source.forEachTask { task in
            try progress.advance(.tasks)
            if firstTaskDates[task.sessionID] == nil {
                firstTaskDates[task.sessionID] = task.createdAt
                sessionOrder.append(task.sessionID)
            }
            let entry = HAREntry(summary: task, details: try source.details(of: task.id))
            counts.blobs += try entry.write(into: &json, source: source)
            try json.drain(into: output)
        }
        if counts.tasks > 0 { json.raw("\n") }
        json.endArray()
        try writePages(sessionOrder, firstTaskDates: firstTaskDates, source: source, into: &json)
        counts.sessions = sessionOrder.count
        json.endObject()
        json.endObject()
        json.raw("\n")
        try json.drain(into: output)
        return counts
    }

    /// One page per session, so readers that list entries by page (haralyzer's `HarPage`) find
    /// every entry under its session.
    private static func writePages(
        _ sessionIDs: [UUID], firstTaskDates: [UUID: Date], source: ExportSource, into json: inout HARJSONWriter
    ) throws {
        let sessions = sessionIDs.isEmpty ? [:] : Dictionary(
            try source.sessions().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        json.beginArray("pages")
        for id in sessionIDs {
            let session = sessions[id]
            json.beginObject(onNewLine: true)
            json.field("startedDateTime", date: session?.startDate ?? firstTaskDates[id] ?? Date(timeIntervalSince1970: 0))
            json.field("id", id.uuidString)
            json.field("title", session.map { "\($0.app.name) session \(id.uuidString)" } ?? "session \(id.uuidString)")
            json.beginObject("pageTimings")
            json.field("onContentLoad", -1)
            json.field("onLoad", -1)
            json.endObject()
            json.endObject()
        }
        if !sessionIDs.isEmpty { json.raw("\n") }
        json.endArray()
    }
}
