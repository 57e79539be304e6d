public import Foundation

extension LogShipper {
    /// What a shipper sends where, and how much at a time.
    public struct Configuration: Sendable {
        /// Where the rows go.
        public var destination: Destination
        /// The history author the shipper consumes as: its cursor in the store is what has been
        /// acknowledged. One per destination: two shippers with one name would share a cursor.
        public var author: String
        /// The name of this machine in the shipped rows (`node` in ClickHouse, `host.name` in
        /// OTLP); the host name unless set.
        public var node: String
        /// The most rows one request carries.
        public var maxRowsPerRequest: Int
        /// The most bytes (before compression) one request carries; a single larger row still
        /// goes, alone.
        public var maxBytesPerRequest: Int
        /// How long one request may take before it counts as failed (and is retried).
        public var requestTimeout: Duration
        /// The longest wait between retries of a failing request (they start at 250 ms and
        /// double; a `Retry-After` the destination sends is honoured up to this).
        public var longestRetryDelay: Duration
        /// Whether request bodies are compressed: for ClickHouse, LZ4 in its own compressed-block
        /// format (what `clickhouse-client` sends); for OTLP, gzip (level 1).
        public var compresses: Bool

        /// - Parameters:
        ///   - destination: where the rows go.
        ///   - author: the history author to consume as (`shipper:clickhouse` or `shipper:otlp`
        ///     unless given).
        ///   - node: this machine's name in the shipped rows (the host name unless given).
        public init(destination: Destination, author: String? = nil, node: String? = nil) {
            self.destination = destination
            self.author = author ?? destination.defaultAuthor
            self.node = node ?? ProcessInfo.processInfo.hostName
            switch destination {
            case .clickHouse:
                // ClickHouse makes a part of every insert and merges them in the background:
                // few large inserts (it advises about one a second) cost it least. Half of
                // 100k lets a backfill's next request be made while one is in flight sooner
                // (0.77× → 0.92× `clickhouse-client` in one loaded benchmark run each).
                maxRowsPerRequest = 50_000
                maxBytesPerRequest = 32 << 20
            case .otlp:
                // Within the request size collectors and vendors accept by default.
                maxRowsPerRequest = 2_000
                maxBytesPerRequest = 4 << 20
            }
            requestTimeout = .seconds(30)
            longestRetryDelay = .seconds(30)
            compresses = true
        }
    }

    /// Where a shipper sends the rows.
    public enum Destination: Sendable, Hashable, CustomStringConvertible {
        /// ClickHouse over its HTTP interface.
        case clickHouse(ClickHouseDestination)
        /// An OTLP/HTTP logs endpoint, with JSON bodies.
        case otlp(OTLPDestination)

        var defaultAuthor: String {
            switch self {
            case .clickHouse: "shipper:clickhouse"
            case .otlp: "shipper:otlp"
            }
        }

        /// The kind and the URLs, without credentials.
        public var description: String {
            switch self {
            case .clickHouse(let clickHouse):
                "clickhouse " + clickHouse.urls.map(\.withoutCredentials).joined(separator: ",")
            case .otlp(let otlp): "otlp " + otlp.url.withoutCredentials
            }
        }
    }
}

/// A ClickHouse server, or the replicas of one, over HTTP (port 8123 by default).
public struct ClickHouseDestination: Sendable, Hashable {
    /// The servers to send to, in order of preference: a failing one is left for the next
    /// until it answers again. User and password come from a URL's user info.
    public var urls: [URL]
    /// The database of the tables (created when missing).
    public var database: String
    /// The cluster (`remote_servers`) the tables are replicated in: each server gets
    /// `ReplicatedReplacingMergeTree` tables (its `{shard}` and `{replica}` macros name them)
    /// and a `Distributed` table over them to query. Nil: plain `ReplacingMergeTree` tables on
    /// one server.
    public var cluster: String?

    /// - Parameters:
    ///   - urls: the servers, in order of preference (`http://host:8123`).
    ///   - database: the database of the tables.
    ///   - cluster: the cluster the tables are replicated in, or nil for one server.
    public init(urls: [URL], database: String = "default", cluster: String? = nil) {
        self.urls = urls
        self.database = database
        self.cluster = cluster
    }
}

/// An OTLP/HTTP logs endpoint (`http://collector:4318/v1/logs`).
public struct OTLPDestination: Sendable, Hashable {
    /// The full URL requests are posted to, `/v1/logs` included.
    public var url: URL
    /// Extra request headers (say an API key a vendor asks for).
    public var headers: [String: String]
    /// The resource's `service.name`.
    public var serviceName: String

    /// - Parameters:
    ///   - url: the full URL, `/v1/logs` included.
    ///   - headers: extra request headers.
    ///   - serviceName: the resource's `service.name` (the process name unless given).
    public init(url: URL, headers: [String: String] = [:], serviceName: String? = nil) {
        self.url = url
        self.headers = headers
        self.serviceName = serviceName ?? ProcessInfo.processInfo.processName
    }
}

extension URL {
    /// The URL as text with any user and password left out (for status and logs).
    var withoutCredentials: String {
        guard user != nil || password != nil, var components = URLComponents(url: self, resolvingAgainstBaseURL: false)
        else { return absoluteString }
        components.user = nil
        components.password = nil
        return components.string ?? absoluteString
    }
}
