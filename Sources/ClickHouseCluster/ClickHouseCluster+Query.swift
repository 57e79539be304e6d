import Foundation

extension ClickHouseCluster {
    /// How long a query may take before it fails as ``ClickHouseClusterError/Code/unreachable``:
    /// longer than an `ON CLUSTER` statement waits for a killed replica (30 s, set in the profile).
    static let querySeconds = 60.0

    /// Runs `sql` on server `server` (POSTed as the body of an HTTP request) and returns the
    /// answer's body: rows in ClickHouse's default `TabSeparated` format, each ending in a
    /// newline; empty for a statement.
    ///
    ///     let count = try await cluster.query("SELECT count() FROM db.t FINAL", server: 1)   // "3\n"
    ///
    /// - Parameters:
    ///   - sql: One statement. An `INSERT` may carry its rows (`… VALUES (1, 'a')`).
    ///   - server: The index in ``servers``; 0 by default.
    /// - Throws: ``ClickHouseClusterError`` with code ``ClickHouseClusterError/Code/queryFailed``,
    ///   the HTTP ``ClickHouseClusterError/status`` and ClickHouse's message as
    ///   ``ClickHouseClusterError/body`` for any status but 200 (a syntax error is 400, an unknown
    ///   table or setting 404); ``ClickHouseClusterError/Code/unreachable`` when the server does
    ///   not answer (killed, or still starting); ``ClickHouseClusterError/Code/stopped`` after
    ///   ``stop()``.
    public func query(_ sql: String, server: Int = 0) async throws -> String {
        let body = try await post(Data(sql.utf8), server: server)
        return String(decoding: body, as: UTF8.self)
    }

    /// POSTs `body` to server `server` with `parameters` in the query string and `headers`, and
    /// returns the answer's body: the way to send rows in a binary format, compressed or not.
    ///
    ///     try await cluster.post(rows, parameters: ["query": "INSERT INTO t FORMAT RowBinary"],
    ///                            headers: ["Content-Encoding": "gzip"])
    ///
    /// - Throws: as ``query(_:server:)``.
    func post(
        _ body: Data, parameters: [String: String] = [:], headers: [String: String] = [:], server: Int = 0
    ) async throws -> Data {
        precondition(serverList.indices.contains(server), "no server \(server) in a cluster of \(serverList.count)")
        guard !isStopped else { throw ClickHouseClusterError(.stopped, "the cluster was stopped") }
        let target = serverList[server]
        let answer = try await http.post(
            target.httpURL, body: body, parameters: parameters, headers: headers, seconds: Self.querySeconds,
            server: target.name)
        guard answer.status == 200 else {
            throw ClickHouseClusterError.queryFailed(
                server: target.name, status: answer.status, body: String(decoding: answer.body, as: UTF8.self))
        }
        return answer.body
    }
}
