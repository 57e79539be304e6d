import Foundation
import Glibc

/// A blocking HTTP/1.1 client for servers on 127.0.0.1, as small as the `serve` figures need:
/// one GET per connection, its body handed over piece by piece as `recv` returns it, whatever
/// the framing (`Content-Length`, chunked, or until the connection closes).
///
/// Not URLSession: on Linux it goes through libcurl and hands the body over when it chooses,
/// and the live tail's latency is measured from the moment the socket gives the bytes. Call it
/// on a thread of its own (``ThreadRunner``): a read blocks.
enum LoopbackHTTPClient {
    /// A response's status and header fields.
    struct Head {
        var status: Int
        var fields: [(name: String, value: String)]

        /// The first field named `name` (case-insensitive).
        func field(_ name: String) -> String? {
            fields.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// GETs `target` (`/path?query`) from `127.0.0.1:port`, then calls `body` with each piece of
    /// the decoded body until the body ends or `body` returns false (the connection is closed
    /// then: a live stream has no end of its own).
    /// - Parameters:
    ///   - headers: sent besides `Host` (the console refuses a request for another host).
    ///   - deadline: when a server that sends nothing more is given up on.
    ///   - onHead: called once the head is read, before the first piece of body.
    /// - Returns: the response's head.
    /// - Throws: ``BenchError`` for a refused connection, a broken response, or the deadline.
    @discardableResult
    static func get(
        port: UInt16, target: String, headers: [(name: String, value: String)] = [], deadline: ContinuousClock.Instant,
        onHead: (Head) throws -> Void = { _ in }, body: (ArraySlice<UInt8>) throws -> Bool
    ) throws -> Head {
        let socket = try connect(port: port)
        defer { close(socket) }
        var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for field in headers { request += "\(field.name): \(field.value)\r\n" }
        request += "\r\n"
        try sendAll(Array(request.utf8), to: socket)

        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var pending: [UInt8] = []
        var head: Head?
        var decoder = BodyDecoder(framing: .untilClose)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                // The receive timeout only wakes the loop to look at the deadline.
                guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                    throw BenchError.failed("reading from 127.0.0.1:\(port)\(target) failed (errno \(errno))")
                }
                guard ContinuousClock.now < deadline else {
                    throw BenchError.failed("127.0.0.1:\(port)\(target) sent nothing more before the deadline")
                }
                continue
            }
            if count == 0 {
                guard head != nil, decoder.framing == .untilClose else {
                    throw BenchError.failed("127.0.0.1:\(port) closed the connection in the middle of \(target)")
                }
                return head!
            }
            var piece = buffer[0..<count]
            if head == nil {
                pending += piece
                guard let end = headEnd(pending) else {
                    guard pending.count < 64 * 1024 else { throw BenchError.failed("a response head over 64 KiB") }
                    continue
                }
                let parsed = try parseHead(pending[..<end])
                head = parsed
                decoder = BodyDecoder(framing: try framing(of: parsed))
                try onHead(parsed)
                let rest = Array(pending[end...])
                pending = []
                if decoder.isComplete { return parsed }
                guard !rest.isEmpty else { continue }
                piece = rest[...]
            }
            var keepGoing = true
            try decoder.feed(piece) { decoded in
                keepGoing = try body(decoded)
                return keepGoing
            }
            if !keepGoing || decoder.isComplete { return head! }
        }
    }

    /// The whole response, for small ones (a page of the API, a version check); the body is
    /// limited to `limit` bytes.
    static func fetch(
        port: UInt16, target: String, headers: [(name: String, value: String)] = [], timeout: Duration = .seconds(10),
        limit: Int = 16 * 1024 * 1024
    ) throws -> (head: Head, body: [UInt8]) {
        var bytes: [UInt8] = []
        let head = try get(port: port, target: target, headers: headers, deadline: .now + timeout) { piece in
            bytes += piece
            guard bytes.count <= limit else { throw BenchError.failed("\(target) answered more than \(limit) bytes") }
            return true
        }
        return (head, bytes)
    }

    // MARK: Socket

    private static func connect(port: UInt16) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw BenchError.failed("socket() failed (errno \(errno))") }
        // Small requests and the tail's events go out and come in at once, not after Nagle's wait.
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(socket)
            throw BenchError.failed("connecting to 127.0.0.1:\(port) failed (errno \(code))")
        }
        return socket
    }

    private static func sendAll(_ bytes: [UInt8], to socket: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw BenchError.failed("sending a request failed (errno \(errno))")
            }
            offset += sent
        }
    }

    // MARK: Head

    /// The index just past the head's blank line, if it has arrived.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
            return index + 1
        }
        return nil
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws -> Head {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw BenchError.failed("not an HTTP/1.x status line: \(lines.first ?? "")")
        }
        let fields = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Head(status: status, fields: fields)
    }

    private static func framing(of head: Head) throws -> BodyDecoder.Framing {
        if head.status == 204 || head.status == 304 { return .length(0) }
        if head.field("Transfer-Encoding")?.lowercased().contains("chunked") == true { return .chunked }
        if let text = head.field("Content-Length") {
            guard let length = Int(text), length >= 0 else { throw BenchError.failed("Content-Length \(text)") }
            return .length(length)
        }
        return .untilClose
    }
}

/// Undoes a response body's framing, as bytes arrive in pieces of any size.
struct BodyDecoder {
    enum Framing: Equatable {
        case length(Int)
        case chunked
        case untilClose
    }

    /// Where a chunked body's reading is.
    private enum ChunkState {
        case sizeLine
        case data(remaining: Int)
        case dataEnd
        case trailer
        case done
    }

    let framing: Framing
    private var remaining = 0
    private var chunk = ChunkState.sizeLine
    private var line: [UInt8] = []

    init(framing: Framing) {
        self.framing = framing
        if case .length(let length) = framing { remaining = length }
    }

    /// Whether the whole body has been read.
    var isComplete: Bool {
        switch framing {
        case .length: remaining == 0
        case .chunked: if case .done = chunk { true } else { false }
        case .untilClose: false
        }
    }

    /// Hands `body` the body bytes in `bytes`; stops early when it returns false.
    mutating func feed(_ bytes: ArraySlice<UInt8>, body: (ArraySlice<UInt8>) throws -> Bool) throws {
        switch framing {
        case .untilClose:
            _ = try body(bytes)
        case .length:
            let taken = bytes.prefix(remaining)
            remaining -= taken.count
            if !taken.isEmpty { _ = try body(taken) }
        case .chunked:
            try feedChunked(bytes, body: body)
        }
    }

    private mutating func feedChunked(_ bytes: ArraySlice<UInt8>, body: (ArraySlice<UInt8>) throws -> Bool) throws {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch chunk {
            case .sizeLine, .trailer, .dataEnd:
                let byte = bytes[index]
                index += 1
                guard byte == 10 else {
                    if byte != 13 { line.append(byte) }
                    continue
                }
                try endLine()
            case .data(let left):
                let end = min(bytes.endIndex, index + left)
                let piece = bytes[index..<end]
                index = end
                chunk = left - piece.count == 0 ? .dataEnd : .data(remaining: left - piece.count)
                guard try body(piece) else { return }
            case .done:
                return
            }
        }
    }

    /// A line of the chunked framing ended: a size, the end of a chunk's data, or a trailer.
    private mutating func endLine() throws {
        defer { line = [] }
        switch chunk {
        case .sizeLine:
            // Chunk extensions (after `;`) carry nothing the benchmark needs.
            let digits = String(decoding: line.prefix { $0 != UInt8(ascii: ";") }, as: UTF8.self)
                .trimmingCharacters(in: .whitespaces)
            guard let size = Int(digits, radix: 16), size >= 0 else {
                throw BenchError.failed("a chunk size of \(digits)")
            }
            chunk = size == 0 ? .trailer : .data(remaining: size)
        case .dataEnd:
            guard line.isEmpty else { throw BenchError.failed("a chunk longer than its size") }
            chunk = .sizeLine
        case .trailer:
            if line.isEmpty { chunk = .done }
        case .data, .done:
            break
        }
    }
}

/// Runs blocking work (a socket read, a child process) on a thread of its own: on the
/// cooperative pool (two threads on this machine) it would starve the console's handlers.
///
/// The thread starts with no signal blocked. It is made from a Dispatch thread, which blocks
/// nearly all of them, and a child that Foundation's `Process` spawns inherits the spawning
/// thread's mask: Datasette started from there never sees the SIGTERM that should stop it.
enum ThreadRunner {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                var none = sigset_t()
                sigemptyset(&none)
                pthread_sigmask(SIG_SETMASK, &none, nil)
                continuation.resume(with: Result { try body() })
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}
