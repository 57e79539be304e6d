import Foundation
import Glibc

/// One HTTP/1.1 connection over plain TCP, used blocking from one thread at a time: the body
/// goes out in as few `write` calls as the kernel takes, the answer is read by its length, its
/// chunks, or to the end.
///
/// The shipper's requests are a few large bodies a second to a server it knows; Foundation's
/// `URLSession` moved each through libcurl's callbacks and libdispatch's event sources, which cost
/// the shipper more CPU than encoding and compressing its rows.
///
/// Used by one thread at a time: ``HTTPPoster`` takes a connection out of its idle list under
/// that list's lock before a request and puts it back after, so no two threads share one.
final class PlainHTTPConnection: @unchecked Sendable {
    /// Why a request over the connection failed.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// Whether nothing of the answer came: on a connection kept from an earlier request, the
        /// server may have closed it meanwhile, and the request can go again on a new one.
        var beforeAnswer: Bool
    }

    let host: String
    let port: Int
    private let descriptor: Int32
    private var buffered: [UInt8] = []
    /// Whether the server may take another request on this connection.
    private(set) var isReusable = true

    /// Connects to `host`:`port` within `timeout`; every later read and write is bounded by it too.
    init(host: String, port: Int, timeout: Duration) throws {
        self.host = host
        self.port = port
        descriptor = try Self.connect(host: host, port: port, timeout: timeout)
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(descriptor) }

    /// Sends a POST of `body` to `target` (the path and query) and reads the answer.
    func post(_ target: String, body: Data, headers: [String: String]) throws -> HTTPPoster.Answer {
        var head = "POST \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers where !name.contains("\r") && !name.contains("\n") && !value.contains("\r") && !value.contains("\n") {
            head += "\(name): \(value)\r\n"
        }
        head += "\r\n"
        try send(Array(head.utf8))
        try body.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws in try send(bytes) }
        return try readAnswer()
    }

    // MARK: Writing

    private func send(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws in try send(raw) }
    }

    private func send(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.send(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "could not send to \(host):\(port): \(Self.errorText())", beforeAnswer: true)
            }
            offset += written
        }
    }

    // MARK: Reading

    private func readAnswer() throws -> HTTPPoster.Answer {
        let headEnd = try readUntilHeadEnd()
        let headText = String(decoding: buffered[..<headEnd], as: UTF8.self)
        buffered.removeFirst(headEnd + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw Failure(description: "\(host):\(port) answered something that is not HTTP: \(statusLine.prefix(80))", beforeAnswer: false)
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let connection = headers["connection"]?.lowercased() ?? ""
        isReusable = parts[0] == "HTTP/1.1" ? connection != "close" : connection == "keep-alive"
        let body: [UInt8]
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try readChunked()
        } else if let length = headers["content-length"].flatMap({ Int($0) }), length >= 0 {
            try fill(atLeast: length)
            body = Array(buffered[..<length])
            buffered.removeFirst(length)
        } else if status == 204 || status == 304 || (100..<200).contains(status) {
            body = []
        } else {
            body = try readToEnd()
            isReusable = false
        }
        return HTTPPoster.Answer(status: status, headers: headers, body: Data(body))
    }

    /// The offset of the blank line ending the head.
    private func readUntilHeadEnd() throws -> Int {
        var searched = 0
        while true {
            if buffered.count >= 4 {
                for index in max(0, searched - 3)..<(buffered.count - 3)
                where buffered[index] == 13 && buffered[index + 1] == 10 && buffered[index + 2] == 13 && buffered[index + 3] == 10 {
                    return index
                }
                searched = buffered.count
            }
            guard buffered.count < 64 * 1024 else {
                throw Failure(description: "\(host):\(port) sent an answer head over 64 KiB", beforeAnswer: false)
            }
            if try !readMore() {
                throw Failure(description: "\(host):\(port) closed the connection before answering", beforeAnswer: buffered.isEmpty)
            }
        }
    }

    private func readChunked() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let lineEnd = try readLine()
            let sizeText = String(decoding: buffered[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            buffered.removeFirst(lineEnd + 2)
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw Failure(description: "\(host):\(port) sent a malformed chunk size", beforeAnswer: false)
            }
            if size == 0 {
                // Trailer fields, if any, up to the blank line.
                while true {
                    let end = try readLine()
                    buffered.removeFirst(end + 2)
                    if end == 0 { return body }
                }
            }
            try fill(atLeast: size + 2)
            body.append(contentsOf: buffered[..<size])
            buffered.removeFirst(size + 2)
        }
    }

    /// The offset of the next CRLF in the buffer, reading until one comes.
    private func readLine() throws -> Int {
        while true {
            if buffered.count >= 2 {
                for index in 0..<(buffered.count - 1) where buffered[index] == 13 && buffered[index + 1] == 10 { return index }
            }
            guard buffered.count < 64 * 1024 else {
                throw Failure(description: "\(host):\(port) sent a line over 64 KiB", beforeAnswer: false)
            }
            if try !readMore() { throw Failure(description: "\(host):\(port) closed the connection mid-answer", beforeAnswer: false) }
        }
    }

    private func fill(atLeast count: Int) throws {
        while buffered.count < count {
            if try !readMore() { throw Failure(description: "\(host):\(port) closed the connection mid-answer", beforeAnswer: false) }
        }
    }

    private func readToEnd() throws -> [UInt8] {
        while try readMore() {}
        defer { buffered.removeAll() }
        return buffered
    }

    /// Reads what arrived; false at the end of the stream.
    private func readMore() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffered.append(contentsOf: chunk[..<count])
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            let timedOut = errno == EAGAIN || errno == EWOULDBLOCK
            throw Failure(
                description: timedOut ? "\(host):\(port) did not answer in time" : "could not read from \(host):\(port): \(Self.errorText())",
                beforeAnswer: buffered.isEmpty && !timedOut)
        }
    }

    // MARK: Connecting

    private static func connect(host: String, port: Int, timeout: Duration) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw Failure(description: "could not resolve \(host): \(String(cString: gai_strerror(resolved)))", beforeAnswer: true)
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let descriptor = socket(address.pointee.ai_family, address.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), address.pointee.ai_protocol)
            guard descriptor >= 0 else {
                lastError = errorText()
                continue
            }
            let started = Glibc.connect(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 || errno == EINPROGRESS
            if !started {
                lastError = errorText()
            } else if waitForConnection(descriptor, timeout: timeout, error: &lastError) {
                // Blocking from here on: the socket timeouts bound each call.
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                return descriptor
            }
            close(descriptor)
        }
        throw Failure(description: "could not connect to \(host):\(port): \(lastError)", beforeAnswer: true)
    }

    private static func waitForConnection(_ descriptor: Int32, timeout: Duration, error: inout String) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        let milliseconds = Int32(clamping: timeout.components.seconds * 1_000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        var ready: Int32
        repeat { ready = poll(&poller, 1, milliseconds) } while ready < 0 && errno == EINTR
        guard ready > 0 else {
            error = ready == 0 ? "timed out" : errorText()
            return false
        }
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length)
        guard code == 0 else {
            error = String(cString: strerror(code))
            return false
        }
        return true
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
