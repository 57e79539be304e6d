import LogStore

/// JSON written by hand for the hot answers (a page of messages, a tail event): Foundation's
/// `JSONEncoder` was about half of the server's CPU on `/api/messages` (perf, under wrk), for
/// values whose shape is fixed. Keys in sorted order, as ``JSONBody`` writes them.
struct JSONText {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A string literal, escaped: quotes, backslashes and control characters (as `\u00XX`).
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case UInt8(ascii: "\n"): raw("\\n")
            case UInt8(ascii: "\r"): raw("\\r")
            case UInt8(ascii: "\t"): raw("\\t")
            case 0..<0x20:
                raw("\\u00")
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func integer(_ value: some BinaryInteger) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A finite number as Swift prints it (shortest round-trip form); `null` otherwise.
    mutating func number(_ value: Double) {
        if value.isFinite { bytes.append(contentsOf: String(value).utf8) } else { raw("null") }
    }

    /// Metadata as nested objects and arrays, keys sorted.
    mutating func metadata(_ metadata: LogStore.Metadata) {
        bytes.append(UInt8(ascii: "{"))
        for (index, key) in metadata.keys.sorted().enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(key)
            bytes.append(UInt8(ascii: ":"))
            if let value = metadata[key] { metadataValue(value) }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func metadataValue(_ value: LogStore.MetadataValue) {
        switch value {
        case .string(let text): string(text)
        case .stringConvertible(let convertible): string(convertible.description)
        case .dictionary(let dictionary): metadata(dictionary)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                metadataValue(element)
            }
            bytes.append(UInt8(ascii: "]"))
        }
    }

    /// A message as ``ConsoleMessage`` encodes it (the same keys and values).
    mutating func message(_ message: ConsoleMessage) {
        raw("{\"cursor\":")
        string(message.cursor)
        if let file = message.file { raw(",\"file\":"); string(file) }
        if let function = message.function { raw(",\"function\":"); string(function) }
        raw(",\"id\":")
        integer(message.id)
        raw(",\"label\":")
        string(message.label)
        raw(",\"level\":")
        string(message.level)
        if let line = message.line { raw(",\"line\":"); integer(line) }
        if let matches = message.matches {
            raw(",\"matches\":[")
            for (index, match) in matches.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                raw("[")
                integer(match[0])
                raw(",")
                integer(match[1])
                raw("]")
            }
            raw("]")
        }
        if let metadata = message.metadata { raw(",\"metadata\":"); self.metadata(metadata) }
        raw(",\"session\":")
        string(message.session.uuidString)
        raw(",\"text\":")
        string(message.text)
        if let thread = message.thread { raw(",\"thread\":"); integer(thread) }
        if let name = message.threadName { raw(",\"threadName\":"); string(name) }
        raw(",\"time\":")
        number(message.time)
        raw("}")
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
