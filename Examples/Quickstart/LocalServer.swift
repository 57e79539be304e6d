import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1, on a port the kernel picks, so the example calls a real
/// server without the network. One connection at a time, `Connection: close`, requests up to
/// 64 KiB: enough for three calls, not a server to copy.
struct LocalServer: Sendable {
    let port: UInt16

    /// What the server answers: a status, a content type and a body.
    typealias Route = @Sendable (_ method: String, _ path: String, _ body: Data) -> (Int, String, Data)

    /// Listens and serves `route` on a thread of its own until the process ends.
    static func start(_ route: @escaping Route) throws -> LocalServer {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)  // loopback only
        address.sin_port = 0  // any free port
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else {
            let error = POSIXError(errno: errno)
            close(listener)
            throw error
        }
        Thread {
            var isFailing = false
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 {
                    // A signal, or a client that gave up while queued: just accept again. Any
                    // other error (out of file descriptors, EMFILE) can last: retrying at once
                    // would spin a core, so wait 10 ms between tries, and say so once.
                    let code = errno
                    if code == EINTR || code == ECONNABORTED { continue }
                    if !isFailing {
                        let text = "LocalServer: accept failed (\(POSIXError(errno: code))); retrying every 10 ms\n"
                        FileHandle.standardError.write(Data(text.utf8))
                        isFailing = true
                    }
                    usleep(10_000)
                    continue
                }
                isFailing = false
                serve(connection, route)
                close(connection)
            }
        }.start()
        return LocalServer(port: UInt16(bigEndian: address.sin_port))
    }

    /// `path` on this server.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    private static func serve(_ connection: Int32, _ route: Route) {
        // A client that stops sending does not hold the server for more than 5 s.
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        let separator = Data("\r\n\r\n".utf8)
        while received.count < 64 << 10 {
            if let end = received.range(of: separator) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                let bodyLength = contentLength(head)
                if received.count - end.upperBound >= bodyLength {
                    let body = received[end.upperBound..<(end.upperBound + bodyLength)]
                    let requestLine = head.split(separator: "\r\n").first?.split(separator: " ") ?? []
                    guard requestLine.count >= 2 else { return }
                    respond(connection, route(String(requestLine[0]), String(requestLine[1]), Data(body)))
                    return
                }
            }
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            received.append(contentsOf: buffer[..<count])
        }
    }

    private static func contentLength(_ head: String) -> Int {
        for line in head.split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                return min(Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0, 32 << 10)
            }
        }
        return 0
    }

    private static func respond(_ connection: Int32, _ reply: (status: Int, type: String, body: Data)) {
        let head = "HTTP/1.1 \(reply.status) \(reply.status < 400 ? "OK" : "Error")\r\n"
            + "Content-Type: \(reply.type)\r\nContent-Length: \(reply.body.count)\r\nConnection: close\r\n\r\n"
        var bytes = Data(head.utf8) + reply.body
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            bytes.removeFirst(sent)
        }
    }
}

extension POSIXError {
    /// The error of a failed system call's `errno`.
    init(errno code: Int32) {
        self.init(POSIXErrorCode(rawValue: code) ?? .EIO)
    }
}
