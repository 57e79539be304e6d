import Foundation

/// The text export's messages written from their rows (``MessageRow``): the same line as
/// ``TextExport/appendMessage(_:to:)`` writes for the ``LogStore/Message`` of the row, byte for
/// byte, without making the message, its strings or its metadata dictionary.
extension TextExport {
    /// What writing rows keeps from one to the next: the names, spelled once.
    struct RowWriter {
        let tables: MessageReader
        private var labels = ExportSpellings<Int64>()
        private var scratch: [UInt8] = []
        private let textScalars = TextScalarTables.current

        init(tables: MessageReader) {
            self.tables = tables
        }

        mutating func append(_ row: some MessageColumns, to line: inout ExportLine) {
            line.append(timestamp: row.createdAt)
            line.append(byte: UInt8(ascii: " "))
            line.bytes.append(contentsOf: TextExport.levelColumns[Int(row.level.rawValue)])
            let tables = tables
            labels.append(row.labelID, to: &line.bytes) { id, bytes in
                bytes.append(UInt8(ascii: "["))
                bytes.append(escaping: tables.labels.name(for: id), .label)
                bytes.append(contentsOf: "] ".utf8)
            }
            line.bytes.append(escapingStored: row.unsafeText, textScalars.plain)
            if let json = row.unsafeMetadataJSON, !json.isEmpty,
                !StoredMetadata.appendText(json, prefix: "  ", tables: textScalars, to: &line.bytes, scratch: &scratch)
            {
                let metadata = LogStore.decodeMetadata(String(decoding: json, as: UTF8.self))
                if !metadata.isEmpty {
                    line.append("  ")
                    TextExport.appendMetadata(metadata, to: &line)
                }
            }
            if let file = row.unsafeFile, !file.isEmpty {
                line.append("  (")
                line.bytes.append(escapingStored: file, textScalars.plain)
                if let number = row.line {
                    line.append(byte: UInt8(ascii: ":"))
                    line.append(integer: number)
                }
                line.append(")")
            }
            line.append(byte: UInt8(ascii: "\n"))
        }
    }
}
