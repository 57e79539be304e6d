/// Metadata a logging call hands over in its caller's own form, made into the store's
/// ``LogStore/Metadata`` by the writer, off the logging thread.
///
/// A bridge from another logging API (swift-log's `LogStoreLogHandler`) would otherwise build a
/// second dictionary on every call, hashing every key again, only to convert what the caller
/// already built: more than the store's own logging call costs. Deferred, the calling thread
/// keeps the caller's values as they are, and the writer resolves them when it takes the event
/// (`LogStore.Event.resolveDeferredMetadata(in:)`), before redaction, `willHandleEvent`,
/// subscribers or the database see it: from there on the event is the one the store's own call
/// would have made.
///
/// Whatever depends on the calling thread or task (a metadata provider's task locals) must be
/// read when the object is made, not in ``resolve()``.
protocol DeferredMetadata: AnyObject, Sendable {
    /// The metadata as the store keeps it. Called by the writer, once per message.
    func resolve() -> LogStore.Metadata?
    /// The event's ``LogStore/Event/estimatedSize`` share for this metadata, fixed when the call
    /// is made: the buffer counts it when the event is appended and again if it is evicted, and
    /// both must agree.
    var estimatedSize: Int { get }
}

extension LogStore.Event {
    /// Resolves every message's deferred metadata in `events` into its ``MessageCreated/metadata``.
    static func resolveDeferredMetadata(in events: inout [LogStore.Event?]) {
        for index in events.indices {
            guard case .messageStored(let message)? = events[index], let deferred = message.deferredMetadata else {
                continue
            }
            var resolved = message
            resolved.metadata = deferred.resolve()
            resolved.deferredMetadata = nil
            events[index] = .messageStored(resolved)
        }
    }
}
