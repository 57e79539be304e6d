import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Posts request bodies for the shipper's destinations: `http` over connections of its own
/// (``PlainHTTPConnection``, kept alive between requests), `https` over a `URLSession` of its
/// own (no cookies, no cache, nothing on disk).
final class HTTPPoster: Sendable {
    /// A response: its status, header fields (names in lower case) and body.
    struct Answer: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        /// The body as text, cut to what an error message needs.
        var excerpt: String {
            let text = String(decoding: body.prefix(500), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? "(no body)" : text
        }
    }

    private let session: URLSession
    private let timeout: Duration
    /// Connections that answered and may take another request, by `host:port`.
    private let idle = Mutex<[String: [PlainHTTPConnection]]>([:])

    init(timeout: Duration) {
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout.seconds
        configuration.timeoutIntervalForResource = timeout.seconds
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Posts `body` to `url`; a transport failure (refused, reset, timed out) throws.
    func post(_ url: URL, body: Data, headers: [String: String]) async throws -> Answer {
        if url.scheme?.lowercased() == "http", let host = url.host, !host.isEmpty {
            return try await postPlain(host: host, port: url.port ?? 80, target: Self.target(of: url), body: body, headers: headers)
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.upload(for: request, from: body)
        guard let http = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse)
        }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return Answer(status: http.statusCode, headers: fields, body: data)
    }

    /// The request target of `url`: its path (at least `/`) and query, as they are encoded.
    private static func target(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? ""
        let query = components?.percentEncodedQuery.map { "?" + $0 } ?? ""
        return (path.isEmpty ? "/" : path) + query
    }

    /// One request on a thread of its own (the socket calls block), over a kept connection when
    /// there is one; a kept connection the server closed meanwhile gets the request again on a
    /// new one.
    private func postPlain(host: String, port: Int, target: String, body: Data, headers: [String: String]) async throws -> Answer {
        let key = "\(host):\(port)"
        let timeout = timeout
        let handover = ThreadHandover()
        let answer = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Answer, any Error>) in
            let thread = Thread { [self] in
                ThreadName.setCurrent("logstore-ship")
                let result = Result { () throws -> Answer in
                    while let kept = idle.withLock({ $0[key]?.popLast() }) {
                        do {
                            let answer = try kept.post(target, body: body, headers: headers)
                            if kept.isReusable { idle.withLock { $0[key, default: []].append(kept) } }
                            return answer
                        } catch let failure as PlainHTTPConnection.Failure where failure.beforeAnswer {
                            continue
                        }
                    }
                    let connection = try PlainHTTPConnection(host: host, port: port, timeout: timeout)
                    let answer = try connection.post(target, body: body, headers: headers)
                    if connection.isReusable { idle.withLock { $0[key, default: []].append(connection) } }
                    return answer
                }
                handover.publish()
                continuation.resume(with: result)
            }
            thread.start()
        }
        handover.receive()
        return answer
    }
}

/// A `Retry-After` value: seconds (`120`), or an HTTP date (both destinations honour it).
enum RetryAfter {
    static func parse(_ value: String) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return .seconds(max(0, date.timeIntervalSinceNow))
    }
}

/// What went wrong with a request, and whether sending it again may help.
enum ShippingFailure: Error, CustomStringConvertible {
    /// The destination could not take it now (unreachable, timed out, 429, 5xx): send it again,
    /// after at least `retryAfter` when the destination said so.
    case retryable(String, retryAfter: Duration?)
    /// The destination refused it for what it holds (400, 413): sending it again cannot help.
    case refused(String, tooLarge: Bool)

    var description: String {
        switch self {
        case .retryable(let reason, _): reason
        case .refused(let reason, _): reason
        }
    }
}

/// A destination's side of shipping: its tables or endpoint, and one request of rows.
protocol ShippingDestination: Sendable {
    /// Gets the destination ready (ClickHouse creates its tables when missing); called before
    /// the first request and again after a failure.
    func prepare() async throws(ShippingFailure)
    /// `rows` as the bodies of one request, compressed when the shipment says so: made while
    /// the request before is in flight, and sent again as they are on a retry.
    func encode(_ rows: ShippingRows, shipment: Shipment) throws(ShippingFailure) -> ShippingRequest
    /// Sends an encoded request; returns when the destination acknowledged all of it.
    func send(_ request: ShippingRequest) async throws(ShippingFailure)
    /// Called every few seconds while the shipper is idle: finishes, in the background, what
    /// ``prepare()`` could not reach.
    func prepareLater()
    /// Why a part of the destination that answers is not ready yet (a ClickHouse replica back
    /// from a restart whose tables could not be made yet), or `nil`: being caught up waits for
    /// it, as that replica would otherwise never get the rows the others took.
    var pendingPreparation: String? { get }
}

extension ShippingDestination {
    func prepareLater() {}
    var pendingPreparation: String? { nil }
}

/// One request's rows and the bodies that carry them.
struct ShippingRequest: Sendable {
    /// One HTTP body: ClickHouse posts one per table, with its insert statement as `query`.
    struct Body: Sendable {
        var query: String?
        var payload: Data
        var headers: [String: String]
        /// Whether `payload` is in ClickHouse's own compressed-block format (its URL then says
        /// `decompress=1`).
        var isClickHouseCompressed = false
    }

    var rows: ShippingRows
    var bodies: [Body]
    /// The bytes of the bodies before compression.
    var bytes: Int
}

extension ShippingRequest.Body {
    /// `bytes` as a body, gzip-compressed (level 1: the request is on its way while the next is
    /// made) with its `Content-Encoding` when `compresses`.
    init(query: String?, bytes: [UInt8], headers: [String: String], compresses: Bool) throws(ShippingFailure) {
        var headers = headers
        var payload = Data(bytes)
        if compresses {
            do {
                payload = Data(try ZlibCompressor(level: 1, gzip: true).compress(bytes))
            } catch {
                throw .refused("the request could not be compressed: \(error)", tooLarge: false)
            }
            headers["Content-Encoding"] = "gzip"
        }
        self.init(query: query, payload: payload, headers: headers)
    }

    /// `bytes` as a ClickHouse insert's body: LZ4 in ClickHouse's compressed-block format when
    /// `compresses` (what its own client sends: several times faster to make than gzip level 1,
    /// which left the shipper's one core short of keeping up with the server).
    init(clickHouseQuery query: String, bytes: [UInt8], compresses: Bool) throws(ShippingFailure) {
        guard compresses else {
            self.init(query: query, payload: Data(bytes), headers: [:])
            return
        }
        do {
            self.init(query: query, payload: Data(try ClickHouseCompressedBody.encode(bytes)), headers: [:], isClickHouseCompressed: true)
        } catch {
            throw .refused("the request could not be compressed: \(error)", tooLarge: false)
        }
    }
}

/// Who ships: what every row says about where it comes from.
struct Shipment: Sendable {
    /// This machine's name (``LogShipper/Configuration/node``).
    var node: String
    /// The store's id.
    var store: UUID
    /// Whether bodies are compressed (``LogShipper/Configuration/compresses``).
    var compresses: Bool
}
