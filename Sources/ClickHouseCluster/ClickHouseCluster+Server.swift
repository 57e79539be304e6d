public import Foundation

extension ClickHouseCluster {
    /// One ClickHouse server of a cluster: a replica of its one shard, listening on 127.0.0.1.
    ///
    /// Its ports stay the same across ``ClickHouseCluster/restart(server:)``.
    public struct Server: Sendable, Hashable {
        /// The replica's name, `r0`, `r1`, …: its `{replica}` macro and its `display_name`.
        public let name: String
        /// Its HTTP interface, `http://127.0.0.1:<port>/`: POST a query as the body, or put it in
        /// the `query` parameter and POST the data (`INSERT … FORMAT RowBinary`).
        public let httpURL: URL
        /// Its native protocol's port (what `<remote_servers>` and `clickhouse-client --port` use).
        public let tcpPort: Int
        /// The port replicas fetch parts from each other on.
        public let interserverHTTPPort: Int
        /// Its directory: `config.xml`, `users.xml`, `data/`, `server.log`, `server.err.log` and
        /// `<name>.out` (standard output and error). Removed by ``ClickHouseCluster/stop()``.
        public let directory: URL

        /// The HTTP port (``httpURL``'s).
        let httpPort: Int

        init(index: Int, httpPort: Int, tcpPort: Int, interserverHTTPPort: Int, root: URL) {
            name = "r\(index)"
            self.httpPort = httpPort
            self.tcpPort = tcpPort
            self.interserverHTTPPort = interserverHTTPPort
            // Fixed text around a port number always parses.
            httpURL = URL(string: "http://127.0.0.1:\(httpPort)/")!
            directory = root.appendingPathComponent(name, isDirectory: true)
        }
    }
}
