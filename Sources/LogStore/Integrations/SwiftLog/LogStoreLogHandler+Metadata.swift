#if SwiftLog
import Logging

extension LogStoreLogHandler {
    /// The metadata stored with `event`: the handler's, the provider's and the call's, in
    /// swift-log's order (a later key wins), then `source` and the error where no key holds them.
    func storedMetadata(of event: LogEvent) -> LogStore.Metadata {
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            merged.merge(provided, uniquingKeysWith: { _, new in new })
        }
        if let call = event.metadata, !call.isEmpty {
            merged.merge(call, uniquingKeysWith: { _, new in new })
        }
        var stored = LogStore.Metadata(minimumCapacity: merged.count + 3)
        for (key, value) in merged {
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
