/// Writes metadata as compact JSON on the writer's thread.
///
/// Hand-written because `JSONEncoder` costs microseconds per small value (the benchmark method
/// article, "Measurements behind the constants") and the writer encodes one object per message.
/// Keys are sorted so equal metadata gives equal text.
enum MetadataJSON {
    static func encode(_ metadata: LogStore.Metadata) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(64)
        write(metadata, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends `metadata` as a JSON object to `output` (the writer reuses one buffer), keys
    /// sorted, without allocating for the sort.
    static func write(_ metadata: LogStore.Metadata, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        withUnsafeTemporaryAllocation(of: LogStore.Metadata.Index.self, capacity: metadata.count) { buffer in
            var indexes = buffer
            var count = 0
            for index in metadata.indices {
                indexes.initializeElement(at: count, to: index)
                count += 1
            }
            indexes.sort { metadata[$0].key < metadata[$1].key }
            for (position, index) in indexes.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                let (key, value) = metadata[index]
                write(key, to: &output)
                output.append(UInt8(ascii: ":"))
                write(value, to: &output)
            }
            _ = indexes.deinitialize()
        }
        output.append(UInt8(ascii: "}"))
    }

    static func write(_ value: LogStore.MetadataValue, to output: inout [UInt8]) {
        switch value {
        case .string(let text): write(text, to: &output)
        case .stringConvertible(let convertible): write(convertible.description, to: &output)
        case .dictionary(let dictionary): write(dictionary, to: &output)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A JSON string literal: quotes, backslashes and control characters escaped (RFC 8259).
    static func write(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        let utf8 = text.utf8
        if utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            // Most keys and values need no escaping: copy them in one go.
            output.append(contentsOf: utf8)
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                output.append(contentsOf: Array("\\u00".utf8))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0xF)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
