#if ServiceLifecycle
public import LogStore
public import ServiceLifecycle

/// The live console as a swift-service-lifecycle `Service`: `run()` serves it until the group
/// shuts down, then stops it (open live tails end, downloads are removed).
///
/// ```swift
/// let console = LogStoreConsoleService(store: store) { console in
///     logger.info("console at \(console.url)")
/// }
/// let group = ServiceGroup(
///     services: [LogStoreService(store: store), console, server],   // the store first: it stops last
///     gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
///
/// List it after ``LogStore/LogStoreService``: a group shuts its services down in reverse order,
/// so the console stops before the store closes.
public struct LogStoreConsoleService: Service {
    /// The store the console shows.
    public let store: LogStore
    /// Where it listens and what it serves.
    public let configuration: LogStoreConsole.Configuration
    private let started: @Sendable (LogStoreConsole) -> Void

    /// A service serving `store`'s console; `started` gets the running console (its ``LogStoreConsole/url``
    /// holds the token to hand to whoever may open it).
    public init(
        store: LogStore, configuration: LogStoreConsole.Configuration = LogStoreConsole.Configuration(),
        started: @escaping @Sendable (LogStoreConsole) -> Void = { _ in }
    ) {
        self.store = store
        self.configuration = configuration
        self.started = started
    }

    /// Starts the console, waits for graceful shutdown or cancellation, then stops it.
    ///
    /// - Throws: ``ConsoleError`` when it cannot start (the port is taken); the group then
    ///   reports it as this service's failure.
    public func run() async throws {
        let console = try await LogStoreConsole.start(store: store, configuration: configuration)
        started(console)
        do {
            try await gracefulShutdown()
        } catch is CancellationError {
            // Cancelled (the group's, or a second signal): stop as on shutdown.
        }
        await console.stop()
    }
}
#endif
