import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@testable import LogStore

@Suite("Network model")
struct NetworkModelTests {

    // MARK: Codable

    private func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        let data = try JSONEncoder().encode(value)
        return try JSONDecoder().decode(T.self, from: data)
    }

    @Test func requestRoundTrips() throws {
        let request = NetworkRequest(
            url: URL(string: "https://example.com/a?b=c"), method: "PUT",
            headers: ["Content-Type": "application/json", "X-Id": "1"],
            body: Data([0, 1, 2, 255]), timeout: 12.5, cachePolicy: "reloadIgnoringLocalCacheData")
        #expect(try roundTrip(request) == request)
        #expect(try roundTrip(NetworkRequest()) == NetworkRequest())
    }

    @Test func responseErrorProgressRoundTrip() throws {
        let response = NetworkResponse(url: URL(string: "https://example.com"), statusCode: 204, headers: ["A": "b"])
        #expect(try roundTrip(response) == response)
        let error = NetworkError(code: -1001, domain: "NSURLErrorDomain", description: "timed out")
        #expect(try roundTrip(error) == error)
        let progress = NetworkProgress(completed: 10, total: 40)
        #expect(try roundTrip(progress) == progress)
        #expect(progress.fractionCompleted == 0.25)
        #expect(NetworkProgress(completed: 10, total: -1).fractionCompleted == nil)
    }

    /// `value` encoded, then decoded again without the top-level `key`: JSON as 0.5 wrote it,
    /// before the field existed.
    private func decodedWithout<T: Codable>(_ key: String, _ value: T) throws -> T {
        let encoded = try JSONEncoder().encode(value)
        var object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(object[key] != nil, "the current encoder writes \(key)")
        object[key] = nil
        return try JSONDecoder().decode(T.self, from: try JSONSerialization.data(withJSONObject: object))
    }

    /// JSON written by 0.5 (`tasks --json`, saved events) has no `direction`: it decodes as
    /// outbound (a completion as not known), and the current form still round-trips.
    @Test func jsonWithoutTheDirectionStillDecodes() throws {
        let url = URL(string: "http://localhost:8080/in")
        let summary = NetworkTaskSummary(
            rowID: 3, id: UUID(), sessionID: UUID(), label: "server", createdAt: Date(timeIntervalSince1970: 1_750_000_000),
            taskType: .data, state: .success, method: "GET", url: url?.absoluteString, host: "localhost",
            statusCode: 200, error: nil, contentType: "text/plain", duration: 0.5, requestBodySize: 0,
            responseBodySize: 2, progress: NetworkProgress(completed: 2, total: 2), direction: .inbound)
        var old = summary
        old.direction = .outbound
        #expect(try decodedWithout("direction", summary) == old)
        #expect(try roundTrip(summary) == summary)

        let created = LogStore.Event.NetworkTaskCreated(
            taskID: UUID(), taskType: .upload, createdAt: Date(timeIntervalSince1970: 1_750_000_000),
            request: NetworkRequest(url: url, method: "POST"), label: "server", taskDescription: "upload",
            direction: .inbound)
        var oldCreated = created
        oldCreated.direction = .outbound
        #expect(try decodedWithout("direction", created) == oldCreated)
        #expect(try roundTrip(created) == created)

        let completed = LogStore.Event.NetworkTaskCompleted(
            taskID: UUID(), taskType: .data, createdAt: Date(timeIntervalSince1970: 1_750_000_000), duration: 1,
            request: NetworkRequest(url: url), response: NetworkResponse(url: url, statusCode: 204), error: nil,
            requestBody: nil, responseBody: nil, metrics: nil, label: "server", direction: .inbound)
        var oldCompleted = completed
        oldCompleted.direction = nil
        #expect(try decodedWithout("direction", completed) == oldCompleted)
        #expect(try roundTrip(completed) == completed)
    }

    @Test func enumsEncodeAsTheirRawValues() throws {
        #expect(NetworkTaskType.allCases.map(\.rawValue) == [0, 1, 2, 3, 4])
        #expect(NetworkTaskState.allCases.map(\.rawValue) == [0, 1, 2])
        #expect(String(decoding: try JSONEncoder().encode(NetworkTaskType.webSocket), as: UTF8.self) == "4")
        #expect(try roundTrip(NetworkTaskState.failure) == .failure)
        #expect(try roundTrip(NetworkTransactionMetrics.FetchType.localCache) == .localCache)
    }

    @Test func metricsRoundTrip() throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let transaction = NetworkTransactionMetrics(
            fetchType: .networkLoad,
            request: NetworkRequest(url: URL(string: "https://example.com"), headers: ["Accept": "*/*"]),
            response: NetworkResponse(statusCode: 200),
            fetchStart: start, domainLookupStart: start, domainLookupEnd: start + 0.01,
            connectStart: start + 0.01, connectEnd: start + 0.05,
            secureConnectionStart: start + 0.02, secureConnectionEnd: start + 0.05,
            requestStart: start + 0.05, requestEnd: start + 0.06,
            responseStart: start + 0.1, responseEnd: start + 0.2,
            networkProtocol: "h2", localAddress: "10.0.0.2", localPort: 50_000,
            remoteAddress: "93.184.216.34", remotePort: 443, tlsVersion: "TLS 1.3",
            cipherSuite: "TLS_AES_128_GCM_SHA256", isReusedConnection: true, isProxyConnection: false,
            requestHeaderBytes: 120, requestBodyBytes: 0, responseHeaderBytes: 300, responseBodyBytes: 1024)
        let metrics = NetworkMetrics(
            taskInterval: DateInterval(start: start, duration: 0.25), redirectCount: 1, transactions: [transaction])
        #expect(try roundTrip(metrics) == metrics)
        #expect(metrics.duration == 0.25)
        #expect(transaction.interval?.duration ?? 0 > 0.19)
        #expect(try roundTrip(NetworkMetrics()) == NetworkMetrics())
    }

    // MARK: Content type and status

    @Test(arguments: [
        ("application/json", "application/json"),
        ("Application/JSON; charset=utf-8", "application/json"),
        ("  text/html ;charset=UTF-8", "text/html"),
        ("application/problem+json", "application/problem+json"),
        ("; charset=utf-8", nil),
        ("", nil),
        ("\tTEXT/Plain\t", "text/plain"),
        ("application/VND.ÉTAT+json", "application/vnd.état+json"),
    ] as [(String, String?)])
    func contentTypeIsParsed(header: String, expected: String?) {
        #expect(NetworkResponse(headers: ["Content-Type": header]).contentType == expected)
        #expect(NetworkRequest(headers: ["content-type": header]).contentType == expected)
    }

    @Test func taskIDsAreRandomVersion4UUIDs() {
        let ids = (0..<1_000).map { _ in UUID.random() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            let text = id.uuidString
            #expect(Array(text)[14] == "4")  // version
            #expect("89AB".contains(Array(text)[19]))  // RFC 4122 variant
        }
    }

    @Test func contentTypeHeaderIsFoundInAnyCase() {
        #expect(NetworkResponse(headers: ["CONTENT-TYPE": "image/png"]).contentType == "image/png")
        #expect(NetworkResponse(headers: ["content-Type": "image/png"]).value(forHTTPHeaderField: "Content-Type") == "image/png")
        #expect(NetworkResponse().contentType == nil)
    }

    @Test func headerNamesMatchInAnyCaseAsLowercasingWould() {
        // ASCII names are compared without lowercased copies; the answers are those of
        // comparing `lowercased()` copies, Unicode case mapping included.
        let pairs: [(String, String)] = [
            ("Content-Encoding", "content-encoding"), ("CONTENT-ENCODING", "Content-Encoding"),
            ("Content-Type", "Content-Encoding"), ("Content", "Content-Type"), ("", ""), ("", "A"),
            ("x-\u{212A}ey", "X-KEY"), ("X-\u{212A}EY", "x-key"), ("X-Café", "x-CAFÉ"), ("X-Café", "X-Cafe"),
            ("Ä", "ä"), ("[", "{"), ("@", "`"), ("A-Z", "a-z"),
        ]
        for (first, second) in pairs {
            #expect(httpHeaderNamesMatch(first, second) == (first.lowercased() == second.lowercased()), "\(first) \(second)")
            #expect(httpHeaderNamesMatch(second, first) == httpHeaderNamesMatch(first, second))
        }
        let headers = ["content-ENCODING": "gzip", "Accept": "*/*", "X-\u{212A}ey": "k"]
        #expect(headers.httpHeaderValue("Content-Encoding") == "gzip")
        #expect(headers.httpHeaderValue("x-key") == "k")
        #expect(headers.httpHeaderValue("Content-Type") == nil)
    }

    @Test func successMeansBelow400() {
        #expect(NetworkResponse(statusCode: 100).isSuccess)
        #expect(NetworkResponse(statusCode: 200).isSuccess)
        #expect(NetworkResponse(statusCode: 304).isSuccess)
        #expect(!NetworkResponse(statusCode: 400).isSuccess)
        #expect(!NetworkResponse(statusCode: 503).isSuccess)
        #expect(!NetworkResponse(statusCode: 99).isSuccess)
        #expect(!NetworkResponse().isSuccess)
    }

    // MARK: Foundation

    @Test func requestFromURLRequest() {
        var urlRequest = URLRequest(
            url: URL(string: "https://example.com/upload?x=1")!,
            cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 30)
        urlRequest.httpMethod = "POST"
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
        urlRequest.httpBody = Data("{}".utf8)

        let request = NetworkRequest(urlRequest)
        #expect(request.url == URL(string: "https://example.com/upload?x=1"))
        #expect(request.method == "POST")
        #expect(request.value(forHTTPHeaderField: "authorization") == "Bearer abc")
        #expect(request.contentType == "application/json")
        #expect(request.body == Data("{}".utf8))
        #expect(request.timeout == 30)
        #expect(request.cachePolicy == "reloadIgnoringLocalCacheData")

        let plain = NetworkRequest(URLRequest(url: URL(string: "https://example.com")!))
        #expect(plain.method == "GET")
        #expect(plain.headers.isEmpty)
        #expect(plain.body == nil)
        #expect(plain.cachePolicy == "useProtocolCachePolicy")
    }

    @Test func responseFromHTTPURLResponse() throws {
        let url = URL(string: "https://example.com/users")!
        let http = try #require(HTTPURLResponse(
            url: url, statusCode: 201, httpVersion: "HTTP/1.1",
            headerFields: ["Content-Type": "application/json; charset=utf-8", "Set-Cookie": "id=1"]))
        let response = NetworkResponse(http)
        #expect(response.url == url)
        #expect(response.statusCode == 201)
        #expect(response.isSuccess)
        #expect(response.contentType == "application/json")
        #expect(response.value(forHTTPHeaderField: "set-cookie") == "id=1")
    }

    @Test func responseFromPlainURLResponse() {
        let url = URL(fileURLWithPath: "/tmp/a.txt")
        let response = NetworkResponse(URLResponse(url: url, mimeType: "text/plain", expectedContentLength: 3, textEncodingName: nil))
        #expect(response.url == url)
        #expect(response.statusCode == nil)
        #expect(response.contentType == "text/plain")
    }

    @Test func errorFromURLErrorAndSwiftError() {
        let urlError = NetworkError(URLError(.timedOut))
        #expect(urlError.code == URLError.Code.timedOut.rawValue)
        #expect(urlError.domain == NSURLErrorDomain)
        #expect(!urlError.description.isEmpty)

        let nsError = NetworkError(NSError(domain: "Custom", code: 7, userInfo: [NSLocalizedDescriptionKey: "broken"]))
        #expect(nsError == NetworkError(code: 7, domain: "Custom", description: "broken"))

        enum Failure: Error { case first, second }
        let swiftError = NetworkError(Failure.second)
        #expect(swiftError.code == 1)
        #expect(swiftError.domain.contains("Failure"))
    }

    @Test func emptyFoundationMetricsConvert() {
        // On Linux this is all user code can build: URLSession never delivers metrics there.
        let metrics = NetworkMetrics(URLSessionTaskMetrics())
        #expect(metrics.redirectCount == 0)
        #expect(metrics.transactions.isEmpty)
        #expect(metrics.taskInterval != nil)
    }

    @Test func fetchTypeAndTLSNames() {
        #expect(NetworkTransactionMetrics.FetchType(.networkLoad) == .networkLoad)
        #expect(NetworkTransactionMetrics.FetchType(.localCache) == .localCache)
        #expect(NetworkTransactionMetrics.FetchType(.unknown) == .unknown)
        #expect(TLSNames.version(0x0304) == "TLS 1.3")
        #expect(TLSNames.version(0x0042) == "0x0042")
        #expect(TLSNames.cipherSuite(0x1301) == "TLS_AES_128_GCM_SHA256")
        #expect(TLSNames.cipherSuite(0xABCD) == "0xABCD")
    }
}
