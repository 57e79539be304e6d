import Foundation

/// `messages` rows copied out of their statement, a chunk at a time, so that one thread can step
/// the statement while another formats the rows it already read (the exports on two cores).
///
/// A chunk is fixed-size records and one byte buffer holding each row's texts one after the
/// other; both keep their capacity when a chunk is cleared, so a recycled chunk allocates nothing.
struct CopiedMessageRows {
    /// One row's fixed columns, and where its texts end in ``bytes``.
    struct Record {
        var id: Int64
        var createdAt: Double
        var labelID: Int64
        var line: Int64
        var threadKey: Int64
        var sessionRowID: Int64
        /// Ends of the text, metadata, file and function in ``bytes`` (the text starts where the
        /// previous row's function ends).
        var textEnd: Int
        var metadataEnd: Int
        var fileEnd: Int
        var functionEnd: Int
        var level: LogStore.Level
        var hasMetadata: Bool
        var hasFile: Bool
        var hasFunction: Bool
        var hasLine: Bool
        var hasThread: Bool
    }

    private(set) var records: [Record] = []
    private(set) var bytes: [UInt8] = []

    init(rowCapacity: Int, byteCapacity: Int) {
        records.reserveCapacity(rowCapacity)
        bytes.reserveCapacity(byteCapacity)
    }

    var count: Int { records.count }

    /// Empties the chunk, keeping its memory.
    mutating func removeAll() {
        records.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
    }

    /// Copies the row the statement is on.
    mutating func append(_ row: MessageRow) {
        bytes.append(contentsOf: row.unsafeText)
        let textEnd = bytes.count
        let metadata = row.unsafeMetadataJSON
        if let metadata { bytes.append(contentsOf: metadata) }
        let metadataEnd = bytes.count
        let file = row.unsafeFile
        if let file { bytes.append(contentsOf: file) }
        let fileEnd = bytes.count
        let function = row.unsafeFunction
        if let function { bytes.append(contentsOf: function) }
        let line = row.line
        let threadID = row.threadID
        records.append(Record(
            id: row.id, createdAt: row.createdAt.timeIntervalSince1970, labelID: row.labelID,
            line: Int64(line ?? 0), threadKey: row.threadKey, sessionRowID: row.sessionRowID,
            textEnd: textEnd, metadataEnd: metadataEnd, fileEnd: fileEnd, functionEnd: bytes.count,
            level: row.level, hasMetadata: metadata != nil, hasFile: file != nil, hasFunction: function != nil,
            hasLine: line != nil, hasThread: threadID != nil))
    }

    /// Calls `body` with each row, in order; the rows' bytes are valid only inside `body`.
    func forEach(_ body: (CopiedMessageRow) throws -> Void) rethrows {
        try bytes.withUnsafeBufferPointer { bytes in
            var start = 0
            for record in records {
                try body(CopiedMessageRow(record: record, textStart: start, bytes: bytes))
                start = record.functionEnd
            }
        }
    }
}

/// One row of a ``CopiedMessageRows`` chunk: the same columns as the ``MessageRow`` it was
/// copied from.
struct CopiedMessageRow: MessageColumns {
    let record: CopiedMessageRows.Record
    let textStart: Int
    let bytes: UnsafeBufferPointer<UInt8>

    var id: Int64 { record.id }
    var createdAt: Date { Date(timeIntervalSince1970: record.createdAt) }
    var level: LogStore.Level { record.level }
    var labelID: Int64 { record.labelID }
    var unsafeText: UnsafeBufferPointer<UInt8> { slice(textStart, record.textEnd) }
    var unsafeMetadataJSON: UnsafeBufferPointer<UInt8>? {
        record.hasMetadata ? slice(record.textEnd, record.metadataEnd) : nil
    }
    var unsafeFile: UnsafeBufferPointer<UInt8>? { record.hasFile ? slice(record.metadataEnd, record.fileEnd) : nil }
    var unsafeFunction: UnsafeBufferPointer<UInt8>? {
        record.hasFunction ? slice(record.fileEnd, record.functionEnd) : nil
    }
    var line: Int? { record.hasLine ? Int(record.line) : nil }
    var threadID: Int32? { record.hasThread ? Int32(truncatingIfNeeded: record.threadKey) : nil }
    var threadKey: Int64 { record.threadKey }
    var sessionRowID: Int64 { record.sessionRowID }

    private func slice(_ start: Int, _ end: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[start..<end])
    }
}
