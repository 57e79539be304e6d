/// The kind of `URLSession` task that carried a request. Stored as its raw value.
public enum NetworkTaskType: Int16, Sendable, Codable, Hashable, CaseIterable {
    /// A data task.
    case data = 0
    /// A download task.
    case download = 1
    /// An upload task.
    case upload = 2
    /// A stream task.
    case stream = 3
    /// A WebSocket task.
    case webSocket = 4
}
