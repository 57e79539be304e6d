public import Foundation

/// One request–response transaction of a task: where the resource came from, the phases' start
/// and end times, the connection, and byte counts.
///
/// Every date is nil when the phase did not happen (no DNS lookup for a reused connection, no TLS
/// for `http:`) or was not reported; byte counts are 0 when unknown.
public struct NetworkTransactionMetrics: Sendable, Codable, Hashable {
    /// Where a transaction's resource came from. Stored as its raw value.
    public enum FetchType: Int16, Sendable, Codable, Hashable, CaseIterable {
        /// Not known.
        case unknown = 0
        /// Loaded over the network.
        case networkLoad = 1
        /// Pushed by the server (HTTP/2 server push).
        case serverPush = 2
        /// Served from the local cache.
        case localCache = 3
    }

    /// Where the resource came from.
    public var fetchType: FetchType
    /// The request head sent in this transaction (no body).
    public var request: NetworkRequest?
    /// The response head received in this transaction (no body).
    public var response: NetworkResponse?

    /// When the task began fetching the resource (from the network or the cache).
    public var fetchStart: Date?
    /// When the DNS lookup began.
    public var domainLookupStart: Date?
    /// When the DNS lookup ended.
    public var domainLookupEnd: Date?
    /// When the connection attempt began.
    public var connectStart: Date?
    /// When the connection was established (including TLS).
    public var connectEnd: Date?
    /// When the TLS handshake began.
    public var secureConnectionStart: Date?
    /// When the TLS handshake ended.
    public var secureConnectionEnd: Date?
    /// When the first byte of the request was sent.
    public var requestStart: Date?
    /// When the last byte of the request was sent.
    public var requestEnd: Date?
    /// When the first byte of the response was received.
    public var responseStart: Date?
    /// When the last byte of the response was received.
    public var responseEnd: Date?

    /// The protocol, as an ALPN identifier such as `"http/1.1"` or `"h2"`.
    public var networkProtocol: String?
    /// The local IP address of the connection.
    public var localAddress: String?
    /// The local port of the connection.
    public var localPort: Int?
    /// The remote IP address of the connection.
    public var remoteAddress: String?
    /// The remote port of the connection.
    public var remotePort: Int?
    /// The negotiated TLS version, such as `"TLS 1.3"`.
    public var tlsVersion: String?
    /// The negotiated TLS cipher suite, such as `"TLS_AES_128_GCM_SHA256"`.
    public var cipherSuite: String?
    /// Whether an existing connection was reused.
    public var isReusedConnection: Bool
    /// Whether the connection went through a proxy.
    public var isProxyConnection: Bool

    /// Bytes of request headers sent (0 when unknown).
    public var requestHeaderBytes: Int64
    /// Bytes of request body sent, after any encoding (0 when unknown).
    public var requestBodyBytes: Int64
    /// Bytes of response headers received (0 when unknown).
    public var responseHeaderBytes: Int64
    /// Bytes of response body received, before any decoding (0 when unknown).
    public var responseBodyBytes: Int64

    /// Creates transaction metrics; every argument defaults to "unknown" (nil, 0, false,
    /// ``FetchType/unknown``).
    public init(
        fetchType: FetchType = .unknown,
        request: NetworkRequest? = nil,
        response: NetworkResponse? = nil,
        fetchStart: Date? = nil,
        domainLookupStart: Date? = nil,
        domainLookupEnd: Date? = nil,
        connectStart: Date? = nil,
        connectEnd: Date? = nil,
        secureConnectionStart: Date? = nil,
        secureConnectionEnd: Date? = nil,
        requestStart: Date? = nil,
        requestEnd: Date? = nil,
        responseStart: Date? = nil,
        responseEnd: Date? = nil,
        networkProtocol: String? = nil,
        localAddress: String? = nil,
        localPort: Int? = nil,
        remoteAddress: String? = nil,
        remotePort: Int? = nil,
        tlsVersion: String? = nil,
        cipherSuite: String? = nil,
        isReusedConnection: Bool = false,
        isProxyConnection: Bool = false,
        requestHeaderBytes: Int64 = 0,
        requestBodyBytes: Int64 = 0,
        responseHeaderBytes: Int64 = 0,
        responseBodyBytes: Int64 = 0
    ) {
        self.fetchType = fetchType
        self.request = request
        self.response = response
        self.fetchStart = fetchStart
        self.domainLookupStart = domainLookupStart
        self.domainLookupEnd = domainLookupEnd
        self.connectStart = connectStart
        self.connectEnd = connectEnd
        self.secureConnectionStart = secureConnectionStart
        self.secureConnectionEnd = secureConnectionEnd
        self.requestStart = requestStart
        self.requestEnd = requestEnd
        self.responseStart = responseStart
        self.responseEnd = responseEnd
        self.networkProtocol = networkProtocol
        self.localAddress = localAddress
        self.localPort = localPort
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.tlsVersion = tlsVersion
        self.cipherSuite = cipherSuite
        self.isReusedConnection = isReusedConnection
        self.isProxyConnection = isProxyConnection
        self.requestHeaderBytes = requestHeaderBytes
        self.requestBodyBytes = requestBodyBytes
        self.responseHeaderBytes = responseHeaderBytes
        self.responseBodyBytes = responseBodyBytes
    }

    /// From ``fetchStart`` to ``responseEnd``; nil unless both are known and in order.
    public var interval: DateInterval? {
        guard let fetchStart, let responseEnd, fetchStart <= responseEnd else { return nil }
        return DateInterval(start: fetchStart, end: responseEnd)
    }
}
