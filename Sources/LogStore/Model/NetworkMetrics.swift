public import Foundation

/// Timing and connection details of one task: its whole interval and one entry per
/// request–response transaction (redirects and retries add transactions).
///
/// Build one from Foundation with ``init(_:)``; on Linux, `URLSession` does not deliver metrics
/// (see that initializer), so a logger fills ``taskInterval`` from its own clock.
public struct NetworkMetrics: Sendable, Codable, Hashable {
    /// From the task's creation to its completion; nil when unknown.
    public var taskInterval: DateInterval?
    /// How many redirects the task followed.
    public var redirectCount: Int
    /// The transactions, in the order they happened.
    public var transactions: [NetworkTransactionMetrics]

    /// Creates metrics.
    ///
    /// - Parameters:
    ///   - taskInterval: From creation to completion. Default nil.
    ///   - redirectCount: Redirects followed. Default 0.
    ///   - transactions: The transactions, in order. Default none.
    public init(
        taskInterval: DateInterval? = nil,
        redirectCount: Int = 0,
        transactions: [NetworkTransactionMetrics] = []
    ) {
        self.taskInterval = taskInterval
        self.redirectCount = redirectCount
        self.transactions = transactions
    }

    /// The task's duration in seconds; nil when ``taskInterval`` is.
    public var duration: TimeInterval? { taskInterval?.duration }
}
