#if SwiftLog
public import Logging

/// A swift-log `LogHandler` that writes every message it is given to a ``LogStore``.
///
/// ```swift
/// let store = try await LogStore(storeURL: url)
/// LoggingSystem.bootstrap(LogStoreLogHandler.factory(store: store), metadataProvider: nil)
/// let logger = Logger(label: "http")
/// logger.info("GET /orders", metadata: ["user": ["id": "42"]], source: "Orders")
/// ```
///
/// What lands where:
/// - the logger's label is the message's ``LogStore/Message/label``;
/// - swift-log's seven levels map one to one onto ``LogStore/Level``;
/// - the metadata of the handler, then of its metadata provider, then of the call are merged,
///   a later one replacing an earlier key; nested dictionaries and arrays stay nested in the stored JSON;
/// - `source` is stored as the metadata key ``sourceMetadataKey`` (`"source"`), queryable with
///   `MetadataFilter.equals("source", "MyModule")` or `logstore messages --meta source=MyModule`;
/// - an error passed with the call is stored as the metadata keys `error.message` (its description)
///   and `error.type` (its type's full name), as swift-log's `StreamLogHandler` prints them;
/// - file (its last path component), function and line are the message's source location.
///
/// A key the merged metadata already holds is never overwritten by `source` or the error's keys.
///
/// The handler is a value: a copy of a `Logger` whose level or metadata changes leaves the
/// original as it was; all copies write to the same store.
///
/// Logging never throws into the app and, with the store's default configuration, never waits:
/// the message is queued by ``LogStore/storeMessage(createdAt:label:level:message:metadata:file:function:line:)``.
/// A store configured `.synchronous` or with ``LogStore/OverflowPolicy/waitForSpace`` blocks the
/// logging thread as that call does, because swift-log's calls are synchronous.
public struct LogStoreLogHandler: LogHandler {
    /// The metadata key under which the call's `source` is stored: `"source"`.
    public static let sourceMetadataKey = "source"
    /// The metadata key under which a logged error's description is stored: `"error.message"`.
    public static let errorMessageMetadataKey = "error.message"
    /// The metadata key under which a logged error's type is stored: `"error.type"`.
    public static let errorTypeMetadataKey = "error.type"

    /// The store every copy of this handler writes to.
    public let store: LogStore
    /// The logger's label, stored as each message's label.
    public let label: String
    /// The lowest level this handler passes on; default `.info`, as swift-log's own handlers.
    ///
    /// The store's ``LogStore/Configuration/minimumLevel`` still applies after it.
    public var logLevel: Logger.Level
    /// Metadata added to every message of this handler (and of its copies made after it is set).
    public var metadata: Logger.Metadata
    /// Metadata computed at each call (a trace ID from a task local), merged after ``metadata``.
    public var metadataProvider: Logger.MetadataProvider?

    /// A handler for the logger `label` writing to `store`.
    ///
    /// - Parameters:
    ///   - label: the logger's label, stored as each message's label.
    ///   - store: where the messages go.
    ///   - logLevel: the lowest level passed on; default `.info`.
    ///   - metadataProvider: metadata computed at each call; default none.
    public init(
        label: String, store: LogStore, logLevel: Logger.Level = .info,
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        self.label = label
        self.store = store
        self.logLevel = logLevel
        self.metadata = [:]
        self.metadataProvider = metadataProvider
    }

    /// A factory for `LoggingSystem.bootstrap(_:metadataProvider:)` or `Logger(label:factory:)`:
    /// each logger gets a handler writing to `store`, with the metadata provider swift-log gives it.
    ///
    /// ```swift
    /// LoggingSystem.bootstrap(LogStoreLogHandler.factory(store: store), metadataProvider: nil)
    /// ```
    ///
    /// - Parameters:
    ///   - store: where every logger's messages go.
    ///   - logLevel: each handler's initial level; default `.info`.
    public static func factory(
        store: LogStore, logLevel: Logger.Level = .info
    ) -> @Sendable (String, Logger.MetadataProvider?) -> any LogHandler {
        { label, provider in
            LogStoreLogHandler(label: label, store: store, logLevel: logLevel, metadataProvider: provider)
        }
    }

    /// One key of ``metadata``.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Stores one event. swift-log has already checked ``logLevel``; the store checks its own
    /// minimum level before anything else is done.
    ///
    /// The metadata provider is called here, on the caller's thread (its values come from the
    /// caller's task locals), and an error described; the metadata is merged and converted into
    /// the store's by the writer, off the caller's thread, before `willHandleEvent`, subscribers
    /// or the database see it.
    public func log(event: LogEvent) {
        store.storeMessage(
            label: label, level: LogStore.Level(event.level), message: event.message.description,
            deferredMetadata: SwiftLogCallMetadata(event: event, handler: metadata, provider: metadataProvider),
            file: event.file, function: event.function, line: event.line)
    }
}
#endif
