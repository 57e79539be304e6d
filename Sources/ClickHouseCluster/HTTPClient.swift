import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// POSTs to the servers' HTTP interface over a session of the cluster's own (no cookies, no
/// cache, nothing on disk).
final class HTTPClient: Sendable {
    private let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    // Not in the cluster's stop(): a session takes no new request once invalidated (Foundation
    // stops the process on one), and a query may come after stop().
    deinit { session.finishTasksAndInvalidate() }

    /// POSTs `body` to `url` with `parameters` in its query string (`query=INSERT …`, settings)
    /// and `headers`; returns the status and the body. A request that gets no answer within
    /// `seconds` (or none at all) throws ``ClickHouseClusterError/Code/unreachable``.
    func post(
        _ url: URL, body: Data, parameters: [String: String] = [:], headers: [String: String] = [:],
        seconds: Double, server: String
    ) async throws -> (status: Int, body: Data) {
        var target = url
        if !parameters.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.queryItems = parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            // URLComponents leaves `+` alone, and ClickHouse reads it as a space.
            components.percentEncodedQuery = components.percentEncodedQuery?
                .replacingOccurrences(of: "+", with: "%2B")
            target = components.url ?? url
        }
        var request = URLRequest(url: target, timeoutInterval: seconds)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.upload(for: request, from: body)
        } catch {
            throw ClickHouseClusterError(.unreachable, "\(server) (\(url.absoluteString)): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw ClickHouseClusterError(.unreachable, "\(server) (\(url.absoluteString)): not an HTTP response")
        }
        return (http.statusCode, data)
    }
}
