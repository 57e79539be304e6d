#if ServiceLifecycle
public import ServiceLifecycle

/// A ``LogShipper`` as a swift-service-lifecycle `Service`: `run()` ships until the group shuts
/// down, lets the request in flight finish, and closes the shipper.
///
/// ```swift
/// let store = try await LogStore(storeURL: url)
/// let shipper = try await LogShipper(storeURL: url, configuration: .init(destination: .clickHouse(
///     ClickHouseDestination(urls: [clickHouseURL]))))
/// let group = ServiceGroup(
///     services: [LogStoreService(store: store), LogShipperService(shipper: shipper), server],
///     gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
///
/// List it after the store's service: the group stops services in reverse order, so the
/// shipper stops before the store closes. What it had not sent yet stays in the store and goes
/// with the next run: its cursor moves only when the destination acknowledged.
public struct LogShipperService: Service {
    /// The shipper this service runs and closes.
    public let shipper: LogShipper

    /// A service that runs `shipper` until its group shuts down.
    public init(shipper: LogShipper) {
        self.shipper = shipper
    }

    /// Ships until graceful shutdown or cancellation, then closes the shipper.
    ///
    /// - Throws: ``LogStoreError`` when the shipper's store cannot be read or closed.
    public func run() async throws {
        let shipper = self.shipper
        do {
            try await withGracefulShutdownHandler {
                try await shipper.run()
            } onGracefulShutdown: {
                shipper.stop()
            }
        } catch {
            try? await shipper.close()
            throw error
        }
        try await shipper.close()
    }
}
#endif
