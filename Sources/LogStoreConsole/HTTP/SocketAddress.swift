import Glibc

/// An IPv4 or IPv6 address with a port, as `bind` takes it and `accept`/`getsockname` give it.
struct SocketAddress: Sendable {
    private enum Storage: Sendable {
        case v4(sockaddr_in)
        case v6(sockaddr_in6)
    }

    private let storage: Storage

    /// The address of a literal `host` (`127.0.0.1`, `::1`, `[::1]`) or `localhost` (taken as
    /// 127.0.0.1: the server resolves no names, so that the address it binds is the one asked for).
    /// - Throws: ``HTTPServerError/badAddress(_:)`` for anything else.
    init(host: String, port: UInt16) throws(HTTPServerError) {
        var literal = host
        if literal.lowercased() == "localhost" { literal = "127.0.0.1" }
        if literal.hasPrefix("["), literal.hasSuffix("]"), literal.count > 2 {
            literal = String(literal.dropFirst().dropLast())
        }
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            storage = .v4(v4)
            return
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, literal, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            storage = .v6(v6)
            return
        }
        throw .badAddress(host)
    }

    /// The address in `raw` (`length` bytes of it filled in by the kernel), or `nil` for a family
    /// other than IPv4 and IPv6.
    init?(_ raw: sockaddr_storage, length: socklen_t) {
        var raw = raw
        switch Int32(raw.ss_family) {
        case AF_INET where Int(length) >= MemoryLayout<sockaddr_in>.size:
            storage = .v4(withUnsafeBytes(of: &raw) { $0.loadUnaligned(as: sockaddr_in.self) })
        case AF_INET6 where Int(length) >= MemoryLayout<sockaddr_in6>.size:
            storage = .v6(withUnsafeBytes(of: &raw) { $0.loadUnaligned(as: sockaddr_in6.self) })
        default:
            return nil
        }
    }

    /// `AF_INET` or `AF_INET6`.
    var family: Int32 {
        switch storage {
        case .v4: return AF_INET
        case .v6: return AF_INET6
        }
    }

    /// The address as text (`127.0.0.1`, `::1`).
    var host: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch storage {
        case .v4(var address):
            guard inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count)) != nil else { return "?" }
        case .v6(var address):
            guard inet_ntop(AF_INET6, &address.sin6_addr, &text, socklen_t(text.count)) != nil else { return "?" }
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The port.
    var port: UInt16 {
        switch storage {
        case .v4(let address): return UInt16(bigEndian: address.sin_port)
        case .v6(let address): return UInt16(bigEndian: address.sin6_port)
        }
    }

    /// `host:port`, the host in brackets for IPv6 (`[::1]:50312`), as URLs and access logs write it.
    var endpoint: String {
        switch storage {
        case .v4: return "\(host):\(port)"
        case .v6: return "[\(host)]:\(port)"
        }
    }

    /// Calls `body` with the address as the `sockaddr` pointer and length the socket calls take.
    func withSockAddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        switch storage {
        case .v4(let address):
            return withUnsafePointer(to: address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .v6(let address):
            return withUnsafePointer(to: address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }
}
