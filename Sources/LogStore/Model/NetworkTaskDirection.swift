/// Which side of an HTTP exchange a network task records.
///
/// A client app's tasks are ``outbound``: the calls it made. A server records the requests it
/// handled as ``inbound`` (see the "Recording inbound requests" article): the request is what a
/// client sent it, the response what it answered. Both are stored, redacted and queried the same
/// way; ``TaskQuery/directions`` tells them apart.
///
/// Stored in `tasks.direction` as a small integer (0 outbound, 1 inbound); the `task_rows` view
/// shows its name. Tasks of stores written before schema 7 are all outbound.
public enum NetworkTaskDirection: String, Sendable, Hashable, Codable, CaseIterable {
    /// A request this process sent (a URLSession or HTTP-client call).
    case outbound
    /// A request this process received and answered (a server handling a client's request).
    case inbound

    /// The value of the `tasks.direction` column.
    var storedValue: Int64 {
        switch self {
        case .outbound: 0
        case .inbound: 1
        }
    }

    /// The direction a `tasks.direction` value stands for; anything unknown (a row another tool
    /// wrote) reads as outbound, the column's default.
    init(storedValue: Int64) {
        self = storedValue == 1 ? .inbound : .outbound
    }
}
