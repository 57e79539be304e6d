/// What ``LogStore/export(to:format:options:progress:)`` writes.
public enum ExportFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// One archive file (a SQLite document) that ``LogStore/init(archiveURL:limits:configuration:)`` opens again
    /// with the whole query API: the database compressed in chunks, the bodies as stored, and an
    /// info record. Named `*.lsarchive` by convention (not `.logarchive`: macOS opens those as its own).
    case archive
    /// Plain text: one readable line per message, one per network task.
    case text
    /// Newline-delimited JSON: one object per message and per network task; the field names are
    /// documented in README.md ("NDJSON fields") and are an interface.
    case ndjson
    /// One self-contained HTML file that works offline in a browser: messages with filters, the
    /// network tasks and their bodies. Every logged string is escaped.
    case html
    /// HAR 1.2 of the network tasks, with request and response bodies.
    case har

    /// The file name extension this format is written with by convention.
    public var fileExtension: String {
        switch self {
        case .archive: "lsarchive"
        case .text: "log"
        case .ndjson: "ndjson"
        case .html: "html"
        case .har: "har"
        }
    }
}
