import Foundation

/// The NDJSON export's messages written from their rows (``MessageRow``): the same line as
/// ``NDJSONExport/appendMessage(_:to:)`` writes for the ``LogStore/Message`` of the row, byte
/// for byte, without making the message, its strings or its metadata dictionary.
extension NDJSONExport {
    /// What writing rows keeps from one to the next: the names, spelled once.
    struct RowWriter {
        let tables: MessageReader
        private var labels = ExportSpellings<Int64>()
        private var sessions = ExportSpellings<Int64>()
        private var threads = ExportSpellings<ExportThreadKey>()
        private var scratch: [UInt8] = []

        init(tables: MessageReader) {
            self.tables = tables
        }

        mutating func append(_ row: some MessageColumns, to line: inout ExportLine) {
            let tables = tables
            line.append("{\"type\":\"message\"")
            line.appendKey("id")
            line.append(integer: row.id)
            line.appendKey("time")
            NDJSONExport.appendTime(row.createdAt, to: &line)
            line.appendKey("level")
            line.bytes.append(contentsOf: NDJSONExport.levelStrings[Int(row.level.rawValue)])
            line.appendKey("label")
            labels.append(row.labelID, to: &line.bytes) { id, bytes in
                bytes.append(quoting: tables.labels.name(for: id), .json)
            }
            line.appendKey("text")
            appendStored(row.unsafeText, to: &line)
            line.appendKey("metadata")
            if let json = row.unsafeMetadataJSON, !json.isEmpty {
                if !StoredMetadata.appendJSON(json, .json, to: &line.bytes, scratch: &scratch) {
                    line.append(jsonMetadata: LogStore.decodeMetadata(String(decoding: json, as: UTF8.self)))
                }
            } else {
                line.append("{}")
            }
            line.appendKey("file")
            appendStored(row.unsafeFile, to: &line)
            line.appendKey("function")
            appendStored(row.unsafeFunction, to: &line)
            line.appendKey("line")
            line.append(jsonInteger: row.line)
            line.appendKey("threadID")
            line.append(jsonInteger: row.threadID)
            line.appendKey("threadName")
            let session = row.sessionRowID
            threads.append(ExportThreadKey(session: session, thread: row.threadKey), to: &line.bytes) { key, bytes in
                if let name = tables.threads.name(session: key.session, thread: key.thread) {
                    bytes.append(quoting: name, .json)
                } else {
                    bytes.append(contentsOf: "null".utf8)
                }
            }
            line.appendKey("session")
            sessions.append(session, to: &line.bytes) { id, bytes in
                bytes.append(quoting: tables.sessions.uuid(for: id).uuidString, .json)
            }
            line.append("}\n")
        }

        /// A stored string as a JSON string, or `null`.
        private func appendStored(_ text: UnsafeBufferPointer<UInt8>?, to line: inout ExportLine) {
            guard let text else { return line.append("null") }
            line.append(byte: UInt8(ascii: "\""))
            line.bytes.append(escapingStored: text, .json)
            line.append(byte: UInt8(ascii: "\""))
        }
    }
}
