import Foundation
import Glibc

/// A small HTTP client for the console's tests: one request per connection (`Connection:
/// close`), blocking sockets on a thread of their own with a receive timeout, so every wait is
/// bounded and the cooperative pool stays free. Requests are written as given, so a test can
/// send any `Host`, cookie or header.
struct ConsoleClient: Sendable {
    let port: UInt16

    /// A response: status, header fields (names lowercased), body (chunked framing removed).
    struct Response: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func header(_ name: String) -> String? { headers.first { $0.name == name.lowercased() }?.value }
        var text: String { String(decoding: body, as: UTF8.self) }
        func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(body)) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// GET (or `method`) `target` with `headers` (a loopback `Host` unless given), the whole
    /// response read within `seconds`.
    func get(
        _ target: String, headers: [(String, String)] = [], method: String = "GET", seconds: Double = 60
    ) async throws -> Response {
        let port = port
        return try await onOwnThread {
            let socket = try Self.connect(port: port, seconds: seconds)
            defer { close(socket) }
            var request = "\(method) \(target) HTTP/1.1\r\n"
            if !headers.contains(where: { $0.0.lowercased() == "host" }) { request += "Host: 127.0.0.1:\(port)\r\n" }
            for (name, value) in headers { request += "\(name): \(value)\r\n" }
            request += "Connection: close\r\n\r\n"
            try Self.send(socket, Array(request.utf8))
            var bytes: [UInt8] = []
            let deadline = Date().addingTimeInterval(TimeScale.scaled(seconds))
            while let chunk = try Self.receive(socket), Date() < deadline { bytes += chunk }
            return try Self.parse(bytes, isHead: method == "HEAD")
        }
    }

    /// Opens a Server-Sent Events stream at `target` and returns the `data:` lines of its first
    /// `count` events named `event` (default: messages), within `seconds`; `headers` as for
    /// ``get(_:headers:method:seconds:)``.
    func events(
        _ target: String, headers: [(String, String)] = [], count: Int, named event: String = "message",
        seconds: Double = 30
    ) async throws -> [(id: String?, data: String)] {
        let port = port
        return try await onOwnThread {
            let socket = try Self.connect(port: port, seconds: 1)
            defer { close(socket) }
            var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            for (name, value) in headers { request += "\(name): \(value)\r\n" }
            request += "\r\n"
            try Self.send(socket, Array(request.utf8))
            var text = ""
            var found: [(id: String?, data: String)] = []
            let deadline = Date().addingTimeInterval(TimeScale.scaled(seconds))
            while found.count < count {
                guard Date() < deadline else {
                    throw Failure(description: "\(found.count) of \(count) events within \(seconds) s; read: \(text.suffix(2000))")
                }
                do {
                    guard let chunk = try Self.receive(socket) else { throw Failure(description: "the stream ended: \(text.suffix(2000))") }
                    text += String(decoding: chunk, as: UTF8.self)
                } catch let failure as Failure where failure.description == "timeout" {
                    continue
                }
                found = Self.events(in: text, named: event)
            }
            return Array(found.prefix(count))
        }
    }

    /// The events of an SSE text (chunk-size lines of chunked framing are skipped: they are hex
    /// digits alone on a line, which no event line is).
    static func events(in text: String, named wanted: String) -> [(id: String?, data: String)] {
        var events: [(id: String?, data: String)] = []
        // "\r\n" (the chunk framing's) is one Character in Swift: unfold it before splitting lines.
        for block in text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n") {
            var name = "message"
            var id: String?
            var data: String?
            for line in block.split(separator: "\n", omittingEmptySubsequences: true) {
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
            }
            if let data, name == wanted { events.append((id, data)) }
        }
        return events
    }

    private static func connect(port: UInt16, seconds: Double) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var timeout = timeval(tv_sec: Int(TimeScale.scaled(seconds)), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw Failure(description: "connect to port \(port): errno \(errno)")
        }
        return socket
    }

    private static func send(_ socket: Int32, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += count
        }
    }

    /// The next bytes; nil at the end of the stream; throws "timeout" when none came in time.
    private static func receive(_ socket: Int32) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { throw Failure(description: "timeout") }
            if errno == ECONNRESET { return nil }
            throw Failure(description: "recv: errno \(errno)")
        }
        return count == 0 ? nil : Array(buffer.prefix(count))
    }

    static func parse(_ bytes: [UInt8], isHead: Bool = false) throws -> Response {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else {
            throw Failure(description: "no complete head in \(bytes.count) bytes: \(String(decoding: bytes.prefix(500), as: UTF8.self))")
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "status line \(head[0])") }
        let headers = head.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(bytes[(end + 4)...])
        if !isHead, headers.contains(where: { $0.0 == "transfer-encoding" && $0.1.lowercased() == "chunked" }) {
            body = try dechunk(body)
        }
        return Response(status: status, headers: headers, body: body)
    }

    private static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var body: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = bytes[index...].indices.first(where: { bytes[$0...].starts(with: [13, 10]) }),
                let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";")[0], radix: 16)
            else { throw Failure(description: "bad chunk framing") }
            if size == 0 { break }
            body += bytes[(lineEnd + 2)..<min(bytes.count, lineEnd + 2 + size)]
            index = lineEnd + 2 + size + 2
        }
        return body
    }
}
