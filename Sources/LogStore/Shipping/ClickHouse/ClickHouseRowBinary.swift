import Foundation

/// Rows in ClickHouse's `RowBinary` format, in the column order of ``ClickHouseSchema``: each
/// value as ClickHouse holds it (little-endian integers, strings and arrays after their
/// length as a LEB128 number), so the server parses nothing but lengths.
struct ClickHouseRowBinary {
    private(set) var bytes: [UInt8] = []
    /// Sessions' identifiers as encoded: a request's messages come from a few sessions, and
    /// spelling a UUID in lower case allocates twice.
    private var sessions: [UUID: [UInt8]] = [:]

    init(capacity: Int = 1 << 16) { bytes.reserveCapacity(capacity) }

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    // MARK: Rows

    mutating func append(_ message: LogStore.Message, shipment: Shipment, storeID: String, version: Int64) {
        string(shipment.node)
        string(storeID)
        integer(message.id)
        session(message.sessionID)
        time(message.createdAt)
        bytes.append(UInt8(truncatingIfNeeded: message.level.rawValue))
        string(message.label)
        string(message.text)
        let keys = message.metadata.keys.sorted()
        leb128(UInt64(keys.count))
        for key in keys { string(key) }
        leb128(UInt64(keys.count))
        var json: [UInt8] = []
        for key in keys {
            switch message.metadata[key] {
            case .string(let text): string(text)
            case .stringConvertible(let value): string(value.description)
            case .some(let value):
                json.removeAll(keepingCapacity: true)
                MetadataJSON.write(value, to: &json)
                bytes(json)
            case .none: string("")
            }
        }
        string(message.file ?? "")
        string(message.function ?? "")
        integer(UInt32(clamping: message.line ?? 0))
        integer(message.threadID ?? 0)
        string(message.threadName ?? "")
        integer(UInt64(clamping: version))
    }

    mutating func append(_ task: ShippedTask, shipment: Shipment, storeID: String, version: Int64) {
        let summary = task.summary
        string(shipment.node)
        string(storeID)
        integer(summary.rowID)
        string(summary.id.uuidString.lowercased())
        string(summary.sessionID.uuidString.lowercased())
        time(summary.createdAt)
        string(summary.label)
        bytes.append(UInt8(truncatingIfNeeded: summary.taskType.rawValue))
        bytes.append(UInt8(truncatingIfNeeded: summary.state.rawValue))
        bytes.append(summary.direction == .inbound ? 1 : 0)
        string(summary.method ?? "")
        string(summary.url ?? "")
        string(summary.host ?? "")
        integer(Int32(clamping: summary.statusCode ?? 0))
        integer(Int64(summary.error?.code ?? 0))
        string(summary.error?.domain ?? "")
        string(summary.error?.description ?? "")
        string(summary.contentType ?? "")
        integer((summary.duration ?? 0) * 1_000)
        integer(summary.requestBodySize)
        integer(summary.responseBodySize)
        string(TraceContext(traceparent: task.traceparent)?.traceID ?? "")
        integer(UInt64(clamping: version))
    }

    mutating func append(_ gap: ShippedGap, shipment: Shipment, storeID: String, version: Int64) {
        string(shipment.node)
        string(storeID)
        string("\(gap.entity)")
        integer(gap.cursor)
        integer(UInt64(gap.rows))
        integer(UInt32(clamping: Int64(gap.date.timeIntervalSince1970.rounded(.down))))
        integer(UInt64(clamping: version))
    }

    // MARK: Values

    private mutating func session(_ id: UUID) {
        if let encoded = sessions[id] {
            bytes.append(contentsOf: encoded)
            return
        }
        let start = bytes.count
        string(id.uuidString.lowercased())
        sessions[id] = Array(bytes[start...])
    }

    /// `DateTime` (whole seconds) and then `time_us` (the microseconds within the second).
    private mutating func time(_ date: Date) {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        integer(UInt32(clamping: seconds))
        integer(UInt32(micros - seconds * 1_000_000))
    }

    private mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            leb128(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    private mutating func bytes(_ data: [UInt8]) {
        leb128(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    private mutating func leb128(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private mutating func integer<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func integer(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
