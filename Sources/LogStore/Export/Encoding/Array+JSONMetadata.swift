/// Metadata as JSON, for NDJSON and the HTML page alike: strings escaped by the caller's rules,
/// keys sorted, so equal metadata gives equal text.
extension [UInt8] {
    /// Appends `metadata` as a JSON object.
    mutating func append(jsonMetadata metadata: LogStore.Metadata, _ rules: EscapeRules) {
        append(UInt8(ascii: "{"))
        for (position, key) in metadata.keys.sorted().enumerated() {
            if position > 0 { append(UInt8(ascii: ",")) }
            append(quoting: key, rules)
            append(UInt8(ascii: ":"))
            append(jsonMetadataValue: metadata[key] ?? .string(""), rules)
        }
        append(UInt8(ascii: "}"))
    }

    private mutating func append(jsonMetadataValue value: LogStore.MetadataValue, _ rules: EscapeRules) {
        switch value {
        case .string(let text): append(quoting: text, rules)
        case .stringConvertible(let convertible): append(quoting: convertible.description, rules)
        case .dictionary(let dictionary): append(jsonMetadata: dictionary, rules)
        case .array(let values):
            append(UInt8(ascii: "["))
            for (position, element) in values.enumerated() {
                if position > 0 { append(UInt8(ascii: ",")) }
                append(jsonMetadataValue: element, rules)
            }
            append(UInt8(ascii: "]"))
        }
    }
}
