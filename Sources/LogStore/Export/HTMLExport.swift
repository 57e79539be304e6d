import Foundation

/// The `.html` format: one self-contained page that works offline in a browser.
///
/// The data travels as JSON inside `<script type="application/json">` blocks (escaped for that
/// context by ``ScriptJSON``), never as generated markup: the page's one script builds the DOM
/// with `textContent`, so logged text (attacker-controlled) is never parsed as HTML. The page
/// streams out in order — the head, the messages one row at a time, the tasks one at a time,
/// then the label and session tables and the script — so memory stays bounded.
///
/// Its `Content-Security-Policy` forbids every network load, allows only the page's script (by
/// its SHA-256) and inline styles, and images from `data:` URLs (embedded image bodies).
enum HTMLExport {
    static func write(_ source: ExportSource, to output: ExportOutput, progress: ExportProgressReporter) throws -> ExportCounts {
        var counts = ExportCounts()
        var tables = HTMLTables()
        var json = ScriptJSON()

        try output.write(HTMLPage.head)
        json.raw("{")
        json.key("exportedAt")
        json.number(Milliseconds.since1970(Date()) ?? 0)
        json.raw(",")
        json.key("library")
        json.string(LogStore.Version.library.description)
        json.raw(",")
        json.key("bodyLimit")
        json.number(HTMLBody.limit)
        json.raw("}")
        try flush(&json, to: output)

        try output.write(HTMLPage.messagesOpening)
        var isFirst = true
        counts.messages = try source.forEachMessage { message in
            if !isFirst { json.raw(",") }
            isFirst = false
            HTMLMessageRow.write(message, tables: &tables, to: &json)
            try flush(&json, to: output)
            try progress.advance(.messages)
        }

        try output.write(HTMLPage.tasksOpening)
        isFirst = true
        counts.tasks = try source.forEachTask { task in
            if !isFirst { json.raw(",") }
            isFirst = false
            counts.blobs += try HTMLTaskRow.write(task, source: source, tables: &tables, to: &json)
            try flush(&json, to: output)
            try progress.advance(.tasks)
        }

        try output.write(HTMLPage.tablesOpening)
        tables.write(to: &json, describing: try source.sessions())
        try flush(&json, to: output)
        counts.sessions = tables.sessionIDs.count

        try output.write(HTMLPage.tail)
        return counts
    }

    private static func flush(_ json: inout ScriptJSON, to output: ExportOutput) throws {
        try output.write(json.bytes)
        json.bytes.removeAll(keepingCapacity: true)
    }
}
