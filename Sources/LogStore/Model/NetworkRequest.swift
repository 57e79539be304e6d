public import Foundation

/// An HTTP request as the store records it: what was asked for, independent of `URLRequest`.
///
/// ```swift
/// let request = NetworkRequest(
///     url: URL(string: "https://api.example.com/users"),
///     method: "POST",
///     headers: ["Content-Type": "application/json"],
///     body: Data(#"{"name":"Ada"}"#.utf8)
/// )
/// ```
///
/// Build one from Foundation with ``init(_:)``. Headers are kept exactly as given; where the library
/// looks one up (``contentType``, ``value(forHTTPHeaderField:)``, redaction) it compares names
/// case-insensitively.
public struct NetworkRequest: Sendable, Codable, Hashable {
    /// The URL requested; nil when the task had none.
    public var url: URL?
    /// The HTTP method, such as `"GET"` or `"POST"`.
    public var method: String
    /// The header fields, as given.
    public var headers: [String: String]
    /// The body sent, when it is known (a body streamed from a file or stream is not).
    public var body: Data?
    /// The timeout, in seconds, when one was set.
    public var timeout: TimeInterval?
    /// A readable name of the cache policy, such as `"useProtocolCachePolicy"`.
    public var cachePolicy: String?

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - url: The URL requested. Default nil.
    ///   - method: The HTTP method. Default `"GET"`.
    ///   - headers: The header fields. Default none.
    ///   - body: The body. Default nil.
    ///   - timeout: The timeout in seconds. Default nil.
    ///   - cachePolicy: A readable name of the cache policy. Default nil.
    public init(
        url: URL? = nil,
        method: String = "GET",
        headers: [String: String] = [:],
        body: Data? = nil,
        timeout: TimeInterval? = nil,
        cachePolicy: String? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.cachePolicy = cachePolicy
    }

    /// The value of a header field, its name compared case-insensitively.
    public func value(forHTTPHeaderField name: String) -> String? {
        headers.httpHeaderValue(name)
    }

    /// The media type of the body, from the `Content-Type` header (found case-insensitively),
    /// without parameters and lowercased: `"application/json"` for
    /// `"Application/JSON; charset=utf-8"`. Nil when there is no such header.
    public var contentType: String? {
        headers.httpHeaderValue("Content-Type").flatMap(MediaType.essence(of:))
    }
}
