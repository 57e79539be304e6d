#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

// Conversions from Foundation's URL loading types (FoundationNetworking on Linux) to the store's
// own value types.

extension NetworkRequest {
    /// Creates a request from a `URLRequest`: URL, method (`"GET"` when unset), header fields,
    /// body (nil when the request streams its body), timeout and cache policy.
    public init(_ request: URLRequest) {
        self.init(
            url: request.url,
            method: request.httpMethod ?? "GET",
            headers: request.allHTTPHeaderFields ?? [:],
            body: request.httpBody,
            timeout: request.timeoutInterval,
            cachePolicy: Self.name(of: request.cachePolicy)
        )
    }

    static func name(of policy: URLRequest.CachePolicy) -> String {
        switch policy {
        case .useProtocolCachePolicy: "useProtocolCachePolicy"
        case .reloadIgnoringLocalCacheData: "reloadIgnoringLocalCacheData"
        case .reloadIgnoringLocalAndRemoteCacheData: "reloadIgnoringLocalAndRemoteCacheData"
        case .returnCacheDataElseLoad: "returnCacheDataElseLoad"
        case .returnCacheDataDontLoad: "returnCacheDataDontLoad"
        case .reloadRevalidatingCacheData: "reloadRevalidatingCacheData"
        @unknown default: "cachePolicy(\(policy.rawValue))"
        }
    }
}

extension NetworkResponse {
    /// Creates a response from a `URLResponse`.
    ///
    /// An `HTTPURLResponse` gives its status code and header fields. Any other response (such as
    /// one for a `file:` URL) has no status code; its MIME type, when known, is recorded as a
    /// `Content-Type` header so that ``contentType`` still describes the body.
    public init(_ response: URLResponse) {
        if let http = response as? HTTPURLResponse {
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                headers[String(describing: name)] = String(describing: value)
            }
            self.init(url: http.url, statusCode: http.statusCode, headers: headers)
        } else {
            self.init(url: response.url, headers: response.mimeType.map { ["Content-Type": $0] } ?? [:])
        }
    }
}

extension NetworkTaskType {
    /// The kind of a `URLSession` task; a task of a class this library does not know counts as
    /// ``data``.
    public init(_ task: URLSessionTask) {
        // An upload task is a data task subclass, so it is tested first.
        if task is URLSessionUploadTask {
            self = .upload
        } else if task is URLSessionDownloadTask {
            self = .download
        } else if task is URLSessionStreamTask {
            self = .stream
        } else if Self.isWebSocket(task) {
            self = .webSocket
        } else {
            self = .data
        }
    }

    private static func isWebSocket(_ task: URLSessionTask) -> Bool {
        #if canImport(FoundationNetworking)
        return task is URLSessionWebSocketTask
        #else
        if #available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *) {
            return task is URLSessionWebSocketTask
        }
        return false
        #endif
    }
}

extension NetworkMetrics {
    /// Creates metrics from the `URLSessionTaskMetrics` a session delegate receives in
    /// `urlSession(_:task:didFinishCollecting:)`.
    ///
    /// Every field this type has is mapped. What arrives depends on the platform:
    ///
    /// - **Apple platforms** fill the task interval, the redirect count and, per transaction, the
    ///   fetch type, request and response heads, all phase dates, protocol, addresses and ports,
    ///   TLS version and cipher suite, reuse and proxy flags, and the byte counts.
    /// - **Linux** (swift-corelibs-foundation, checked with Swift 6.3.1): the types and every
    ///   property exist, but `URLSession` never calls `urlSession(_:task:didFinishCollecting:)`
    ///   — not for data, download or failing tasks — and code outside Foundation cannot create
    ///   transactions or set their properties. So on Linux there is nothing to convert: a logger
    ///   should build ``NetworkMetrics`` itself (a ``taskInterval`` from its own clock,
    ///   no transactions). A default-constructed `URLSessionTaskMetrics()` converts to a
    ///   zero-length interval, no redirects and no transactions. On Linux `localPort` and
    ///   `remotePort` are strings; they are parsed as integers.
    public init(_ metrics: URLSessionTaskMetrics) {
        self.init(
            taskInterval: metrics.taskInterval,
            redirectCount: metrics.redirectCount,
            transactions: metrics.transactionMetrics.map(NetworkTransactionMetrics.init)
        )
    }
}

extension NetworkTransactionMetrics {
    /// Creates transaction metrics from Foundation's; see ``NetworkMetrics/init(_:)`` for what
    /// each platform fills. The request and response are kept as heads: bodies are dropped.
    public init(_ metrics: URLSessionTaskTransactionMetrics) {
        var request = NetworkRequest(metrics.request)
        request.body = nil
        self.init(
            fetchType: FetchType(metrics.resourceFetchType),
            request: request,
            response: metrics.response.map(NetworkResponse.init),
            fetchStart: metrics.fetchStartDate,
            domainLookupStart: metrics.domainLookupStartDate,
            domainLookupEnd: metrics.domainLookupEndDate,
            connectStart: metrics.connectStartDate,
            connectEnd: metrics.connectEndDate,
            secureConnectionStart: metrics.secureConnectionStartDate,
            secureConnectionEnd: metrics.secureConnectionEndDate,
            requestStart: metrics.requestStartDate,
            requestEnd: metrics.requestEndDate,
            responseStart: metrics.responseStartDate,
            responseEnd: metrics.responseEndDate,
            networkProtocol: metrics.networkProtocolName,
            localAddress: metrics.localAddress,
            localPort: Self.port(metrics.localPort),
            remoteAddress: metrics.remoteAddress,
            remotePort: Self.port(metrics.remotePort),
            isReusedConnection: metrics.isReusedConnection,
            isProxyConnection: metrics.isProxyConnection,
            requestHeaderBytes: metrics.countOfRequestHeaderBytesSent,
            requestBodyBytes: metrics.countOfRequestBodyBytesSent,
            responseHeaderBytes: metrics.countOfResponseHeaderBytesReceived,
            responseBodyBytes: metrics.countOfResponseBodyBytesReceived
        )
        #if canImport(FoundationNetworking)
        tlsVersion = metrics.negotiatedTLSProtocolVersion.map { TLSNames.version($0.rawValue) }
        cipherSuite = metrics.negotiatedTLSCipherSuite.map { TLSNames.cipherSuite($0.rawValue) }
        #else
        if #available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *) {
            tlsVersion = metrics.negotiatedTLSProtocolVersion.map { TLSNames.version($0.rawValue) }
            cipherSuite = metrics.negotiatedTLSCipherSuite.map { TLSNames.cipherSuite($0.rawValue) }
        }
        #endif
    }

    // Ports are `Int?` on Apple platforms and `String?` in swift-corelibs-foundation; overloads
    // pick the right conversion without an `#if`.
    private static func port(_ value: Int?) -> Int? { value }
    private static func port(_ value: String?) -> Int? { value.flatMap { Int($0) } }
}

extension NetworkTransactionMetrics.FetchType {
    /// The fetch type matching Foundation's.
    public init(_ type: URLSessionTaskMetrics.ResourceFetchType) {
        switch type {
        case .networkLoad: self = .networkLoad
        case .serverPush: self = .serverPush
        case .localCache: self = .localCache
        case .unknown: self = .unknown
        @unknown default: self = .unknown
        }
    }
}

/// Readable names for the TLS protocol versions and cipher suites that `URLSession` reports by
/// their IANA numbers.
enum TLSNames {
    static func version(_ value: UInt16) -> String {
        switch value {
        case 0x0301: "TLS 1.0"
        case 0x0302: "TLS 1.1"
        case 0x0303: "TLS 1.2"
        case 0x0304: "TLS 1.3"
        case 0xFEFF: "DTLS 1.0"
        case 0xFEFD: "DTLS 1.2"
        default: hex(value)
        }
    }

    /// The IANA name of the suites modern servers negotiate; any other is shown as its number.
    static func cipherSuite(_ value: UInt16) -> String {
        switch value {
        case 0x1301: "TLS_AES_128_GCM_SHA256"
        case 0x1302: "TLS_AES_256_GCM_SHA384"
        case 0x1303: "TLS_CHACHA20_POLY1305_SHA256"
        case 0xC02B: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
        case 0xC02C: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"
        case 0xC02F: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
        case 0xC030: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"
        case 0xCCA8: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"
        case 0xCCA9: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"
        default: hex(value)
        }
    }

    private static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
