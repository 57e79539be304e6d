import Foundation
import Glibc
import Synchronization

/// An HTTP client for the server's tests on a raw TCP socket: it writes exactly the bytes it is
/// given (malformed ones too) and reads responses itself, so a test sees what went over the wire.
///
/// Every read waits in `poll` with a bound (stretched by ``TimeScale``), on a thread of its own
/// (``onOwnThread``): the server's handlers run on the cooperative pool, which a blocked read
/// must not hold.
final class RawHTTPClient: Sendable {
    /// A response as read: status, fields in order, body (de-chunked).
    struct Response: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        /// The body as UTF-8 text.
        var text: String { String(decoding: body, as: UTF8.self) }

        /// The first value of the field `name` (any case).
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The names of the fields, lowercased, in order.
        var headerNames: [String] { headers.map { $0.name.lowercased() } }
    }

    /// Why a read failed.
    enum Failure: Error, CustomStringConvertible {
        /// The server closed the connection before the response was complete.
        case closed(after: [UInt8])
        /// Nothing (or not enough) arrived within the bound.
        case timedOut(after: [UInt8])
        /// What arrived is not an HTTP response.
        case malformed(String)
        /// A socket call failed.
        case system(String, Int32)

        var description: String {
            switch self {
            case .closed(let bytes): return "closed after \(bytes.count) bytes: \(String(decoding: bytes.prefix(200), as: UTF8.self).debugDescription)"
            case .timedOut(let bytes): return "timed out after \(bytes.count) bytes: \(String(decoding: bytes.prefix(200), as: UTF8.self).debugDescription)"
            case .malformed(let reason): return "malformed response: \(reason)"
            case .system(let call, let code): return "\(call): \(String(cString: strerror(code)))"
            }
        }
    }

    /// The socket.
    let descriptor: Int32
    /// Bytes read past the last response (the start of the next, when pipelined).
    private let buffered = Mutex<[UInt8]>([])
    /// Whether ``close()`` ran: the descriptor is closed once.
    private let isClosed = Mutex(false)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Connects to `host`:`port`; `receiveBuffer` sets `SO_RCVBUF` first (a small one makes a
    /// client that stops reading fill up sooner). `sending` is written as soon as the connection
    /// is made, on the same thread: a `send` after this returns waits for a thread of the
    /// concurrency pool first, and in a busy parallel run that wait can outlast a short idle
    /// timeout, which then rightly closes a connection that sent nothing.
    static func connect(
        host: String = "127.0.0.1", port: UInt16, receiveBuffer: Int32? = nil, sending: String? = nil
    ) async throws -> RawHTTPClient {
        try await onOwnThread {
            let isIPv6 = host.contains(":")
            let descriptor = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(O_CLOEXEC), 0)
            guard descriptor >= 0 else { throw Failure.system("socket", errno) }
            let client = RawHTTPClient(descriptor: descriptor)
            if var size = receiveBuffer {
                setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            let result: Int32
            if isIPv6 {
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = port.bigEndian
                inet_pton(AF_INET6, host, &address.sin6_addr)
                result = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
                }
            } else {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = port.bigEndian
                inet_pton(AF_INET, host, &address.sin_addr)
                result = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            }
            guard result == 0 else { throw Failure.system("connect", errno) }
            if let sending { try client.sendAll(Array(sending.utf8)) }
            return client
        }
    }

    /// Writes `text` as UTF-8.
    func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    /// Writes `bytes`, all of them.
    func send(_ bytes: [UInt8]) async throws {
        try await onOwnThread { try self.sendAll(bytes) }
    }

    /// Writes `text` as UTF-8 on the calling thread, blocking: for a test already on a thread of
    /// its own, where a hop to another would cost it a wait for the pool.
    func sendNow(_ text: String) throws {
        try sendAll(Array(text.utf8))
    }

    /// Reads one response within `seconds`; `toHead` says it answers a HEAD (no body follows).
    func response(toHead: Bool = false, seconds: Double = 60) async throws -> Response {
        try await onOwnThread { try self.readResponse(toHead: toHead, headOnly: false, seconds: seconds) }
    }

    /// Reads a response's status line and fields only, leaving its body unread.
    func responseHead(seconds: Double = 60) async throws -> Response {
        try await onOwnThread { try self.readResponse(toHead: false, headOnly: true, seconds: seconds) }
    }

    /// Reads until `count` bytes past the head have arrived (or the connection ends), within
    /// `seconds`; returns what arrived.
    func read(atLeast count: Int, seconds: Double = 60) async throws -> [UInt8] {
        try await onOwnThread {
            let deadline = Date().addingTimeInterval(TimeScale.scaled(seconds))
            var bytes = self.takeBuffered()
            while bytes.count < count {
                guard let more = try self.receive(until: deadline, soFar: bytes), !more.isEmpty else { break }
                bytes += more
            }
            return bytes
        }
    }

    /// Whether the server closes the connection (end of input or reset) within `seconds`,
    /// reading and dropping whatever it sends until then.
    func waitForClose(seconds: Double) async throws -> Bool {
        try await onOwnThread {
            let deadline = Date().addingTimeInterval(TimeScale.scaled(seconds))
            _ = self.takeBuffered()
            while true {
                do {
                    guard let more = try self.receive(until: deadline, soFar: []) else { return true }
                    if more.isEmpty { return true }
                } catch Failure.timedOut {
                    return false
                }
            }
        }
    }

    /// Closes the socket (once; later calls do nothing).
    func close() {
        let first = isClosed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        if first { _ = Glibc.close(descriptor) }
    }

    // MARK: Blocking calls, on a thread of their own

    private func sendAll(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw Failure.system("send", errno)
            }
            offset += sent
        }
    }

    private func takeBuffered() -> [UInt8] {
        buffered.withLock { bytes in
            defer { bytes = [] }
            return bytes
        }
    }

    /// One read: bytes, `[]` at the end of input, `nil` on a reset; throws past `deadline`.
    private func receive(until deadline: Date, soFar: [UInt8]) throws -> [UInt8]? {
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw Failure.timedOut(after: soFar) }
            var descriptor = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(remaining * 1000, 1000).rounded(.up)))
            if ready < 0 && errno != EINTR { throw Failure.system("poll", errno) }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = chunk.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                if errno == ECONNRESET { return nil }
                throw Failure.system("recv", errno)
            }
            return Array(chunk[0..<count])
        }
    }

    private func readResponse(toHead: Bool, headOnly: Bool, seconds: Double) throws -> Response {
        let deadline = Date().addingTimeInterval(TimeScale.scaled(seconds))
        var bytes = takeBuffered()
        func more() throws {
            guard let chunk = try receive(until: deadline, soFar: bytes), !chunk.isEmpty else { throw Failure.closed(after: bytes) }
            bytes += chunk
        }
        var headEnd: Int?
        while true {
            if let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) {
                headEnd = end.upperBound
                break
            }
            try more()
        }
        guard let headEnd else { throw Failure.malformed("no head") }
        let lines = String(decoding: bytes[0..<(headEnd - 4)], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0] == "HTTP/1.1", let status = Int(statusParts[1]) else {
            throw Failure.malformed("status line \(lines[0].debugDescription)")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw Failure.malformed("field line \(line.debugDescription)") }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = Response(status: status, headers: headers, body: [])
        var rest = Array(bytes[headEnd...])
        defer { buffered.withLock { $0 = rest } }
        if headOnly || toHead || status == 204 || status == 304 { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            while rest.count < length {
                bytes = rest
                try more()
                rest = bytes
            }
            response.body = Array(rest[0..<length])
            rest.removeFirst(length)
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            var body: [UInt8] = []
            while true {
                while rest.firstRange(of: Array("\r\n".utf8)) == nil {
                    bytes = rest
                    try more()
                    rest = bytes
                }
                guard let lineEnd = rest.firstRange(of: Array("\r\n".utf8)),
                    let size = Int(String(decoding: rest[0..<lineEnd.lowerBound], as: UTF8.self), radix: 16)
                else { throw Failure.malformed("chunk size line") }
                while rest.count < lineEnd.upperBound + size + 2 {
                    bytes = rest
                    try more()
                    rest = bytes
                }
                body += rest[lineEnd.upperBound..<(lineEnd.upperBound + size)]
                guard rest[(lineEnd.upperBound + size)..<(lineEnd.upperBound + size + 2)].elementsEqual("\r\n".utf8) else {
                    throw Failure.malformed("chunk not followed by CRLF")
                }
                rest.removeFirst(lineEnd.upperBound + size + 2)
                if size == 0 { break }
            }
            response.body = body
        } else {
            // Delimited by the close.
            bytes = rest
            while let chunk = try receive(until: deadline, soFar: bytes), !chunk.isEmpty { bytes += chunk }
            response.body = bytes
            rest = []
        }
        return response
    }
}
