#if SwiftLog
import Logging

extension LogStoreLogHandler {
    /// The metadata stored with `event`: the handler's, the provider's and the call's, in
    /// swift-log's order (a later key wins), then `source` and the error where no key holds them.
    func storedMetadata(of event: LogEvent) -> LogStore.Metadata {
        let provided = metadataProvider?.get() ?? [:]
        let call = event.metadata ?? [:]
        // One dictionary, filled layer by layer (a later layer's key replaces an earlier one's):
        // merging swift-log dictionaries first and converting after would hash every key twice.
        var stored = LogStore.Metadata(minimumCapacity: metadata.count + provided.count + call.count + 3)
        for (key, value) in metadata {
            stored[key] = LogStore.MetadataValue(value)
        }
        for (key, value) in provided {
            stored[key] = LogStore.MetadataValue(value)
        }
        for (key, value) in call {
            stored[key] = LogStore.MetadataValue(value)
        }
        // The user's own keys of these names are data too: they are kept as given.
        if stored[Self.sourceMetadataKey] == nil {
            stored[Self.sourceMetadataKey] = .string(event.source)
        }
        if let error = event.error {
            if stored[Self.errorMessageMetadataKey] == nil {
                stored[Self.errorMessageMetadataKey] = .string(String(describing: error))
            }
            if stored[Self.errorTypeMetadataKey] == nil {
                stored[Self.errorTypeMetadataKey] = .string(String(reflecting: type(of: error)))
            }
        }
        return stored
    }
}

extension LogStore.MetadataValue {
    /// The same value in the store's terms: dictionaries and arrays stay nested (stored as JSON
    /// objects and arrays), and a `stringConvertible` is rendered when the message is stored,
    /// off the logging thread, as the store does for its own.
    init(_ value: Logger.Metadata.Value) {
        switch value {
        case .string(let string): self = .string(string)
        case .stringConvertible(let convertible): self = .stringConvertible(convertible)
        case .dictionary(let dictionary):
            var nested = LogStore.Metadata(minimumCapacity: dictionary.count)
            for (key, value) in dictionary {
                nested[key] = LogStore.MetadataValue(value)
            }
            self = .dictionary(nested)
        case .array(let array): self = .array(array.map(LogStore.MetadataValue.init))
        }
    }
}
#endif
