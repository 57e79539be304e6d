import LogStore

/// The example's messages, through the plain API: the one place that would log through
/// swift-log instead, when the package is built with its `SwiftLog` trait.
func logMessages(to store: LogStore) {
    store.storeMessage(label: "example", level: .info, message: "example started",
                       metadata: ["version": "1.0"])
    store.storeMessage(label: "orders", level: .notice, message: "order 42 looked up",
                       metadata: ["order": ["id": "42", "items": ["A-1", "B-7"]]])
    store.storeMessage(label: "orders", level: .warning, message: "payment retried",
                       metadata: ["attempt": "2"])
}
