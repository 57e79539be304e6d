public import Foundation

/// The head of a response as the store records it: URL, status and headers. The body is passed
/// separately, so the same value also describes the responses inside ``NetworkTransactionMetrics``.
///
/// Build one from Foundation with ``init(_:)``.
public struct NetworkResponse: Sendable, Codable, Hashable {
    /// The URL the response came from (after redirects); nil when unknown.
    public var url: URL?
    /// The HTTP status code; nil for a response that is not HTTP (such as `file:`).
    public var statusCode: Int?
    /// The header fields, as received.
    public var headers: [String: String]

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - url: The URL the response came from. Default nil.
    ///   - statusCode: The HTTP status code. Default nil.
    ///   - headers: The header fields. Default none.
    public init(url: URL? = nil, statusCode: Int? = nil, headers: [String: String] = [:]) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
    }

    /// The value of a header field, its name compared case-insensitively.
    public func value(forHTTPHeaderField name: String) -> String? {
        headers.httpHeaderValue(name)
    }

    /// The media type of the body, from the `Content-Type` header (found case-insensitively),
    /// without parameters and lowercased: `"text/html"` for `"Text/HTML; charset=UTF-8"`.
    /// Nil when there is no such header.
    public var contentType: String? {
        headers.httpHeaderValue("Content-Type").flatMap(MediaType.essence(of:))
    }

    /// Whether the status code is informational, successful or a redirect (100 up to 399).
    /// False when there is no status code.
    public var isSuccess: Bool {
        guard let statusCode else { return false }
        return (100..<400).contains(statusCode)
    }
}
