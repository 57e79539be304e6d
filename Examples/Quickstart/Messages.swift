import LogStore
#if SwiftLog
import Logging
#endif

#if SwiftLog
/// The example's messages, through swift-log (the package is built with its `SwiftLog` trait):
/// a `Logger` whose handler writes to the store, with nested metadata and the call's source.
func logMessages(to store: LogStore) {
    var logger = Logger(label: "example") { label in LogStoreLogHandler(label: label, store: store) }
    logger[metadataKey: "version"] = "1.0"
    logger.info("example started")
    var orders = Logger(label: "orders") { label in LogStoreLogHandler(label: label, store: store) }
    orders.logLevel = .debug
    orders.notice("order 42 looked up", metadata: ["order": ["id": "42", "items": ["A-1", "B-7"]]])
    orders.warning("payment retried", metadata: ["attempt": "2"])
}
#else
/// The example's messages, through the plain API (built with the `SwiftLog` trait, the same
/// messages go through swift-log).
func logMessages(to store: LogStore) {
    store.storeMessage(label: "example", level: .info, message: "example started",
                       metadata: ["version": "1.0"])
    store.storeMessage(label: "orders", level: .notice, message: "order 42 looked up",
                       metadata: ["order": ["id": "42", "items": ["A-1", "B-7"]]])
    store.storeMessage(label: "orders", level: .warning, message: "payment retried",
                       metadata: ["attempt": "2"])
}
#endif
