#if SwiftLog
import Logging

/// One swift-log call's metadata as the caller gave it: the handler's, the provider's and the
/// call's dictionaries, and the event (for its `source`), merged and converted into the store's
/// ``LogStore/Metadata`` by the writer (``DeferredMetadata``).
///
/// Converting on the caller's thread built and hashed a second dictionary on every call, and
/// found `source` by scanning the file's ID: about half of what a `logger.info` cost its caller.
/// What depends on the caller is still read here, when the call is made: the metadata provider
/// (its values come from the caller's task locals) and the error's description and type (an
/// error may describe itself differently later).
final class SwiftLogCallMetadata: DeferredMetadata {
    private let handler: Logger.Metadata
    private let provided: Logger.Metadata
    private let event: LogEvent
    private let errorMessage: String?
    private let errorType: String?
    let estimatedSize: Int

    // `borrowing`: an initializer's argument is passed owned, which made the handler copy the
    // event to pass it and this initializer copy it again to keep it, then destroy the argument
    // (a tenth of the call, in three runtime calls on every field).
    init(event: borrowing LogEvent, handler: Logger.Metadata, provider: Logger.MetadataProvider?) {
        self.handler = handler
        self.provided = provider?.get() ?? [:]
        // The event is kept as it is (one copy); its error is read only here.
        self.event = copy event
        if let error = event.error {
            errorMessage = String(describing: error)
            errorType = String(reflecting: type(of: error))
        } else {
            errorMessage = nil
            errorType = nil
        }
        // The keys as the store will count them, and `source` at most the file ID's length;
        // the store's own call counts its metadata with the same formula.
        var size = Self.estimatedSize(of: handler) + Self.estimatedSize(of: provided)
            + Self.estimatedSize(of: event.metadata ?? [:])
            + 16 + LogStoreLogHandler.sourceMetadataKey.utf8.count + event.file.utf8.count
        if let errorMessage, let errorType {
            size += 32 + LogStoreLogHandler.errorMessageMetadataKey.utf8.count + errorMessage.utf8.count
                + LogStoreLogHandler.errorTypeMetadataKey.utf8.count + errorType.utf8.count
        }
        estimatedSize = size
    }

    /// The handler's, the provider's and the call's metadata, in swift-log's order (a later key
    /// wins), then `source` and the error where no key holds them.
    func resolve() -> LogStore.Metadata? {
        let call = event.metadata ?? [:]
        // One dictionary, filled layer by layer (a later layer's key replaces an earlier one's):
        // merging swift-log dictionaries first and converting after would hash every key twice.
        var stored = LogStore.Metadata(minimumCapacity: handler.count + provided.count + call.count + 3)
        for (key, value) in handler {
            stored[key] = LogStore.MetadataValue(value)
        }
        for (key, value) in provided {
            stored[key] = LogStore.MetadataValue(value)
        }
        for (key, value) in call {
            stored[key] = LogStore.MetadataValue(value)
        }
        // The user's own keys of these names are data too: they are kept as given.
        if stored[LogStoreLogHandler.sourceMetadataKey] == nil {
            stored[LogStoreLogHandler.sourceMetadataKey] = .string(event.source)
        }
        if let errorMessage, stored[LogStoreLogHandler.errorMessageMetadataKey] == nil {
            stored[LogStoreLogHandler.errorMessageMetadataKey] = .string(errorMessage)
        }
        if let errorType, stored[LogStoreLogHandler.errorTypeMetadataKey] == nil {
            stored[LogStoreLogHandler.errorTypeMetadataKey] = .string(errorType)
        }
        return stored
    }

    /// Roughly the bytes `metadata` holds, as the store estimates its own metadata: keys and
    /// string values, a fixed 32 bytes for a value described only by `description`.
    private static func estimatedSize(of metadata: Logger.Metadata) -> Int {
        // The handler's and the provider's are mostly empty.
        guard !metadata.isEmpty else { return 0 }
        // By the dictionary's own index, key and value read in place: iterating the pairs, or
        // the keys and then the values, copied every value out through swift-log's value
        // witness (a retain and a release each), most of what estimating cost.
        var bytes = 16 * metadata.count
        var index = metadata.startIndex
        while index != metadata.endIndex {
            bytes += metadata.keys[index].utf8.count
            // Strings inline; only nested values take the recursive (not inlined) call.
            switch metadata.values[index] {
            case .string(let text): bytes += text.utf8.count
            case let nested: bytes += estimatedSize(ofNested: nested)
            }
            metadata.formIndex(after: &index)
        }
        return bytes
    }

    private static func estimatedSize(ofNested value: Logger.Metadata.Value) -> Int {
        switch value {
        case .string(let text): text.utf8.count
        case .stringConvertible: 32
        case .dictionary(let metadata): estimatedSize(of: metadata)
        case .array(let values): values.reduce(0) { $0 + 8 + estimatedSize(ofNested: $1) }
        }
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
