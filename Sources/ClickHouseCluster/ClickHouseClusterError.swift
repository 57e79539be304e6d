/// Why a ``ClickHouseCluster`` could not start, answer or restart.
///
/// A struct over a code, so new cases can come without breaking a `switch`: compare ``code`` with
/// the constants of ``Code``, read ``status`` and ``body`` for a failed query, and print the error
/// (``description``) for everything there is to know, including the tail of a server's log when
/// it did not start.
///
///     do {
///         _ = try await cluster.query("SELECT * FROM nowhere")
///     } catch let error as ClickHouseClusterError where error.code == .queryFailed {
///         print(error.status ?? 0, error.body ?? "")   // 404 Code: 60, … Table default.nowhere doesn't exist.
///     }
public struct ClickHouseClusterError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure it is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The programs a cluster needs (`clickhouse-server`; `java` and ZooKeeper's jar for
        /// replicas) are not on this machine.
        public static let notInstalled = Code(description: "not installed")
        /// A process could not be launched, or a file of its configuration could not be written.
        public static let launchFailed = Code(description: "launch failed")
        /// A server (or ZooKeeper) did not answer within its bound, or ended while starting.
        public static let startTimedOut = Code(description: "did not start")
        /// ZooKeeper still held the session of a killed server past its bound.
        public static let sessionLingered = Code(description: "session lingered")
        /// ClickHouse answered a query with a status other than 200: see ``status`` and ``body``.
        public static let queryFailed = Code(description: "query failed")
        /// The request did not reach the server or got no answer (refused, reset, timed out).
        public static let unreachable = Code(description: "unreachable")
        /// The cluster was stopped; it cannot start or restart servers any more.
        public static let stopped = Code(description: "stopped")

        /// The code's name, as ``ClickHouseClusterError/description`` starts.
        public let description: String
    }

    /// What kind of failure it is.
    public let code: Code
    /// The HTTP status ClickHouse answered with, for ``Code/queryFailed``; `nil` otherwise.
    public let status: Int?
    /// ClickHouse's message (the response body) for ``Code/queryFailed``; `nil` otherwise.
    public let body: String?
    /// A sentence for a person: what failed, where, and the evidence (status and body of a query,
    /// the tail of a server's output and log for a start).
    public let description: String

    init(_ code: Code, _ description: String, status: Int? = nil, body: String? = nil) {
        self.code = code
        self.description = "\(code): \(description)"
        self.status = status
        self.body = body
    }

    /// A query answered with a status other than 200.
    static func queryFailed(server: String, status: Int, body: String) -> ClickHouseClusterError {
        let message = body.trimmingCharacters(in: .whitespacesAndNewlines)
        return ClickHouseClusterError(
            .queryFailed, "\(server) answered HTTP \(status): \(message.isEmpty ? "(no body)" : message)",
            status: status, body: body)
    }
}
