/// What a change concerns.
public enum HistoryEntity: Int, Sendable, Hashable, CaseIterable, Codable {
    /// Logged messages and the technical messages of tasks.
    case message = 0
    /// Network tasks.
    case task = 1
    /// Sessions (one per process that opened the store).
    case session = 2
    /// Request and response bodies.
    case blob = 3
}

/// What happened to the rows of a change.
public enum HistoryOperation: Int, Sendable, Hashable, CaseIterable, Codable {
    /// New rows.
    case insert = 0
    /// Rows changed in place (a task completed).
    case update = 1
    /// Rows removed (the sweep, a removal).
    case delete = 2
}
