/// How far a task's transfer has come, in units the task reports (bytes for data, download and
/// upload tasks).
public struct NetworkProgress: Sendable, Codable, Hashable {
    /// Units transferred so far.
    public var completed: Int64
    /// Units expected in all; zero or negative when unknown (`URLSession` reports `-1`).
    public var total: Int64

    /// Creates a progress value.
    ///
    /// - Parameters:
    ///   - completed: Units transferred so far. Default 0.
    ///   - total: Units expected; zero or negative when unknown. Default 0.
    public init(completed: Int64 = 0, total: Int64 = 0) {
        self.completed = completed
        self.total = total
    }

    /// The fraction done, from 0 to 1; nil when the total is unknown.
    public var fractionCompleted: Double? {
        guard total > 0 else { return nil }
        return min(1, max(0, Double(completed) / Double(total)))
    }
}
