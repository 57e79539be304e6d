import Foundation
import Glibc
import LogStore

/// The phases of one demo transaction, in milliseconds after the task started: a DNS lookup,
/// TCP connect and TLS handshake for a new connection (most reuse a pooled one), sending the
/// request, the server's think time, and receiving the response at the host's speed.
struct DemoTiming {
    let host: DemoHost
    let start: Date
    let isReusedConnection: Bool
    let localPort: Int
    let requestBytes: Int
    let responseBytes: Int
    private let fetchStart: Double
    private var domainLookup: (Double, Double)?
    private var connect: (Double, Double)?
    private var secureConnection: (Double, Double)?
    private let request: (Double, Double)
    private let response: (Double, Double)

    init(host: DemoHost, start: Date, requestBytes: Int, responseBytes: Int, serverMilliseconds: Double, random: inout DemoRandom) {
        self.host = host
        self.start = start
        self.requestBytes = requestBytes
        self.responseBytes = responseBytes
        isReusedConnection = random.chance(0.7)
        localPort = random.int(32_768...60_999)
        var now = 0.05 + random.double(0..<0.3)
        fetchStart = now
        if !isReusedConnection {
            let lookup = host.address.hasPrefix("10.") ? random.double(0.2..<1.5) : random.double(1..<35)
            domainLookup = (now, now + lookup)
            now += lookup
            let connectStart = now
            now += host.roundTrip * random.double(0.9..<1.4)
            if host.tlsVersion != nil {
                let handshake = host.roundTrip * (host.tlsVersion == "TLS 1.2" ? 2 : 1) * random.double(0.9..<1.3) + random.double(0.5..<3)
                secureConnection = (now, now + handshake)
                now += handshake
            }
            connect = (connectStart, now)
        }
        let sending = 0.05 + Double(requestBytes) / host.bytesPerMillisecond
        request = (now, now + sending)
        now += sending
        let waiting = host.roundTrip + serverMilliseconds
        let receiving = 0.05 + Double(responseBytes) / host.bytesPerMillisecond * random.double(0.8..<1.6)
        response = (now + waiting, now + waiting + receiving)
    }

    /// When the last byte arrived (and the task completed, a fraction of a millisecond later).
    var end: Date { date(response.1 + 0.2) }

    private func date(_ milliseconds: Double) -> Date {
        start.addingTimeInterval(milliseconds / 1000)
    }

    /// The transaction's metrics; a `failure` cuts it where that failure happens (no connection,
    /// or no response).
    func transaction(request head: NetworkRequest, response: NetworkResponse?, failure: URLError.Code? = nil) -> NetworkTransactionMetrics {
        var headRequest = head
        headRequest.body = nil
        let isIPv6 = host.address.contains(":")
        var transaction = NetworkTransactionMetrics(
            fetchType: .networkLoad, request: headRequest, response: response, fetchStart: date(fetchStart),
            domainLookupStart: domainLookup.map { date($0.0) }, domainLookupEnd: domainLookup.map { date($0.1) },
            connectStart: connect.map { date($0.0) }, connectEnd: connect.map { date($0.1) },
            secureConnectionStart: secureConnection.map { date($0.0) }, secureConnectionEnd: secureConnection.map { date($0.1) },
            requestStart: date(request.0), requestEnd: date(request.1), responseStart: date(self.response.0),
            responseEnd: date(self.response.1), networkProtocol: host.networkProtocol,
            localAddress: isIPv6 ? "fd00:12::17" : "10.12.2.17", localPort: localPort, remoteAddress: host.address,
            remotePort: host.port ?? 443, tlsVersion: host.tlsVersion, cipherSuite: host.cipherSuite,
            isReusedConnection: isReusedConnection,
            requestHeaderBytes: Self.headerBytes(head.headers) + Int64(head.method.count + (head.url?.absoluteString.count ?? 0) + 12),
            requestBodyBytes: Int64(requestBytes), responseHeaderBytes: response.map { Self.headerBytes($0.headers) + 17 } ?? 0,
            responseBodyBytes: Int64(responseBytes))
        switch failure {
        case nil:
            break
        case .cannotConnectToHost?:
            // Refused: the connection never completed, nothing was sent.
            let refused = connect?.0 ?? fetchStart
            transaction.connectStart = date(refused)
            transaction.connectEnd = nil
            transaction.secureConnectionStart = nil
            transaction.secureConnectionEnd = nil
            transaction.isReusedConnection = false
            for path in [\NetworkTransactionMetrics.requestStart, \.requestEnd, \.responseStart, \.responseEnd] {
                transaction[keyPath: path] = nil
            }
            transaction.requestHeaderBytes = 0
            transaction.requestBodyBytes = 0
        case _?:
            // Sent, and no answer came.
            transaction.responseStart = nil
            transaction.responseEnd = nil
            transaction.responseHeaderBytes = 0
            transaction.responseBodyBytes = 0
        }
        return transaction
    }

    /// The transaction with every date moved `seconds` later.
    static func shifted(_ transaction: NetworkTransactionMetrics, by seconds: TimeInterval) -> NetworkTransactionMetrics {
        let paths: [WritableKeyPath<NetworkTransactionMetrics, Date?>] = [
            \.fetchStart, \.domainLookupStart, \.domainLookupEnd, \.connectStart, \.connectEnd, \.secureConnectionStart,
            \.secureConnectionEnd, \.requestStart, \.requestEnd, \.responseStart, \.responseEnd,
        ]
        var shifted = transaction
        for path in paths { shifted[keyPath: path] = transaction[keyPath: path]?.addingTimeInterval(seconds) }
        return shifted
    }

    private static func headerBytes(_ headers: [String: String]) -> Int64 {
        Int64(headers.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 4 })
    }
}

/// HTTP odds and ends of the demo.
enum DemoHTTP {
    /// An IMF-fixdate (`Sun, 15 Jun 2025 15:06:40 GMT`), as a `Date` header holds.
    static func date(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
