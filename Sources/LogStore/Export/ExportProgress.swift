/// How far an export has got, as ``LogStore/export(to:format:options:progress:)`` reports it
/// to its `progress` callback (a few times a second at most, and once when it is done).
public struct ExportProgress: Sendable, Hashable {
    /// What the export is doing.
    public enum Phase: String, Sendable, Hashable, Codable {
        /// Copying a consistent snapshot of the selected rows.
        case copying
        /// Compressing the copied database into the archive.
        case compressing
        /// Adding the bodies to the archive.
        case bodies
        /// Writing messages (text, NDJSON, HTML).
        case messages
        /// Writing network tasks (text, NDJSON, HTML, HAR).
        case tasks
        /// Done: the file is in place.
        case finished
    }

    /// The current phase.
    public var phase: Phase
    /// Units done so far over the whole export (bytes for an archive, rows for the other formats).
    public var completed: Int64
    /// Units the whole export takes, as far as known when the export started.
    public var total: Int64

    /// `completed / total`, between 0 and 1.
    public var fractionCompleted: Double {
        total > 0 ? min(1, max(0, Double(completed) / Double(total))) : (phase == .finished ? 1 : 0)
    }

    /// Creates a progress report.
    public init(phase: Phase, completed: Int64, total: Int64) {
        self.phase = phase
        self.completed = completed
        self.total = total
    }
}
