#if ServiceLifecycle
public import ServiceLifecycle

/// A ``LogStore`` as a swift-service-lifecycle `Service`: `run()` keeps the store open until the
/// group shuts down, then drains everything logged and closes it.
///
/// ```swift
/// let store = try await LogStore(storeURL: url)
/// let group = ServiceGroup(
///     services: [LogStoreService(store: store), server],   // the store first: it stops last
///     gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
///
/// A `ServiceGroup` shuts its services down in reverse order, so list the store before the
/// services that log to it: they stop (and log their last messages) before the store closes.
///
/// On graceful shutdown (SIGTERM when the group lists it) and on cancellation alike, `run()`
/// calls ``LogStore/close()``, which commits every message logged before it, checkpoints and
/// closes the files, then returns. A store already closed elsewhere is fine: `close()` returns
/// the result of that drain. After `run()` returns the store ignores logging calls.
public struct LogStoreService: Service {
    /// The store this service closes at shutdown.
    public let store: LogStore

    /// A service that closes `store` when its group shuts down.
    public init(store: LogStore) {
        self.store = store
    }

    /// Waits for graceful shutdown or cancellation, then closes the store.
    ///
    /// - Throws: ``LogStoreError/writeFailed(_:)`` when what was logged could not be committed
    ///   at close; the group then reports it as this service's failure.
    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch is CancellationError {
            // Cancellation (the group's, or a second signal) ends the wait as shutdown does: the
            // store must still be drained, or the last messages are lost.
        }
        try await store.close()
    }
}
#endif
