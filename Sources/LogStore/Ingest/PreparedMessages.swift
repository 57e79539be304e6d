/// A batch's messages as the rows the writer inserts, laid out by ``BatchPreparer`` with the
/// batch (in the background under load), so that the writer thread, the bottleneck under load,
/// only binds bytes it reads in order.
///
/// Reading each message out of its event instead cost the writer a copy of the event's fields,
/// with a retain of each string on memory other cores had just written (about a tenth of the
/// writer thread in the profile), plus a label lookup by string hashing and a thread-name lookup
/// per row; with the rows, the writer spends about a sixth less CPU per message. Each row's texts
/// are here one after the other, cut as the writer would cut them; the labels and thread names
/// are numbered per batch. The copy costs about 250 bytes a message while its batch is prepared
/// and committed (``LogStore/Configuration/maxPendingEvents`` counts it in its default).
struct PreparedMessages: Sendable {
    /// One event of the batch: a message's columns, or a mark that the event is not a message.
    struct Row: Sendable {
        var createdAt: Double = 0
        var line: Int64 = 0
        /// Where this row's text, metadata JSON, file name and function end in ``bytes``, one
        /// after the other (the text starts where the previous row's function ends). Metadata of
        /// length zero is none (NULL).
        var textEnd = 0
        var metadataEnd = 0
        var fileEnd = 0
        var end = 0
        var threadID: Int32 = 0
        /// Index in ``labels``; ``notAMessage`` for a hole or an event of another kind.
        var label: Int32 = Row.notAMessage
        /// Index in ``threadNames``; -1 for none.
        var threadName: Int32 = -1
        var level: LogStore.Level = .trace
        /// Whether the writer checks this row's thread name against the one it recorded: the
        /// thread's first named row in the batch, or a new name. Every later row of the thread
        /// has the name its last check saw.
        var isNewThreadName = false

        static let notAMessage: Int32 = -1
        var isMessage: Bool { label != Self.notAMessage }
    }

    private var rows: [Row] = []
    private var bytes: [UInt8] = []
    /// The batch's labels, each once.
    private(set) var labels: [String] = []
    /// The batch's thread names, each once.
    private(set) var threadNames: [String] = []
    /// Events put in front of the batch after it was prepared (a failed commit's, retried):
    /// they have no row here, the writer reads them from their events.
    private var offset = 0

    init() {}

    /// Lays out every message of `events`, exactly as the writer would bind it (texts cut to
    /// ``LogStore/maxMessageBytes``, metadata keys sorted and cut to ``LogStore/maxMetadataBytes``,
    /// files to their last path component).
    init(_ events: [LogStore.Event?]) {
        rows.reserveCapacity(events.count)
        var labelIndexes: [String: Int32] = [:]
        var nameIndexes: [String: Int32] = [:]
        // Per thread, the index of the name its last named row had.
        var lastNames: [Int32: Int32] = [:]
        for event in events {
            guard case .messageStored(let message)? = event else {
                rows.append(Row(end: bytes.count))
                continue
            }
            var row = Row(createdAt: message.createdAt.timeIntervalSince1970, line: Int64(truncatingIfNeeded: message.line))
            Self.capped(message.message).withUTF8Bytes { bytes.append(contentsOf: $0) }
            row.textEnd = bytes.count
            Self.append(message.metadata, to: &bytes)
            row.metadataEnd = bytes.count
            Self.appendLastPathComponent(of: message.file, to: &bytes)
            row.fileEnd = bytes.count
            message.function.withUTF8Bytes { bytes.append(contentsOf: $0) }
            row.end = bytes.count
            row.threadID = message.threadID
            row.level = message.level
            row.label = Self.index(of: message.label, in: &labels, indexes: &labelIndexes)
            if let name = message.threadName {
                let index = Self.index(of: name, in: &threadNames, indexes: &nameIndexes)
                row.threadName = index
                if lastNames[message.threadID] != index {
                    row.isNewThreadName = true
                    lastNames[message.threadID] = index
                }
            }
            rows.append(row)
        }
    }

    /// The row of event `index` of the batch; nil for events put in front after preparation.
    func row(at index: Int) -> Row? {
        let slot = index - offset
        guard slot >= 0, slot < rows.count else { return nil }
        return rows[slot]
    }

    /// Calls `body` with the text of event `index`'s row and its metadata JSON (empty for
    /// none), file name and function; the event must have a row (``row(at:)``).
    func withColumns<Result>(
        ofRowAt index: Int,
        _ body: (_ text: UnsafeRawBufferPointer, _ metadata: UnsafeRawBufferPointer, _ file: UnsafeRawBufferPointer,
                 _ function: UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let slot = index - offset
        let row = rows[slot]
        let start = slot == 0 ? 0 : rows[slot - 1].end
        return try bytes.withUnsafeBytes { bytes in
            try body(
                UnsafeRawBufferPointer(rebasing: bytes[start..<row.textEnd]),
                UnsafeRawBufferPointer(rebasing: bytes[row.textEnd..<row.metadataEnd]),
                UnsafeRawBufferPointer(rebasing: bytes[row.metadataEnd..<row.fileEnd]),
                UnsafeRawBufferPointer(rebasing: bytes[row.fileEnd..<row.end]))
        }
    }

    /// Shifts the indexes for `count` events put in front of the batch.
    mutating func prepend(count: Int) {
        offset += count
    }

    /// Appends the JSON of `metadata` (nothing for none or empty) to `output`, cut to
    /// ``LogStore/maxMetadataBytes``.
    static func append(_ metadata: LogStore.Metadata?, to output: inout [UInt8]) {
        guard let metadata, !metadata.isEmpty else { return }
        let start = output.count
        MetadataJSON.write(metadata, to: &output)
        let cut = output[start...].withUnsafeBytes {
            SizeCap.truncatedMetadata($0, limit: LogStore.maxMetadataBytes)
        }
        if let cut {
            output.removeSubrange(start...)
            output.append(contentsOf: cut)
        }
    }

    /// A message's text, cut to ``LogStore/maxMessageBytes`` (so no single message can fail its
    /// batch on SQLite's length limit): the same string when it fits.
    static func capped(_ text: String) -> String {
        text.withUTF8Bytes { utf8 in
            SizeCap.truncated(utf8, limit: LogStore.maxMessageBytes).map { String(decoding: $0, as: UTF8.self) }
        } ?? text
    }

    /// Appends the file name after the last `/` of `path`.
    static func appendLastPathComponent(of path: String, to output: inout [UInt8]) {
        path.withUTF8Bytes { utf8 in
            let start = utf8.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[start...]))
        }
    }

    private static func index(of name: String, in names: inout [String], indexes: inout [String: Int32]) -> Int32 {
        if let index = indexes[name] { return index }
        let index = Int32(names.count)
        names.append(name)
        indexes[name] = index
        return index
    }
}
