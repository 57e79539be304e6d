import Glibc

/// A TCP socket bound and listening, non-blocking; the loop thread accepts from it and closes it.
struct ListeningSocket: Sendable {
    /// The descriptor.
    let descriptor: Int32
    /// The address it is bound to, with the port the kernel picked when asked for 0.
    let address: SocketAddress

    /// Binds `host`:`port` (`SO_REUSEADDR`, so a restart does not wait out the old connections'
    /// `TIME_WAIT`) and listens.
    /// - Throws: ``HTTPServerError``: the address is not a literal, in use, not this machine's, …
    static func open(host: String, port: UInt16) throws(HTTPServerError) -> ListeningSocket {
        let requested = try SocketAddress(host: host, port: port)
        let socketType = Int32(SOCK_STREAM.rawValue) | LinuxCalls.socketFlags
        let descriptor: Int32
        switch SocketCall.valueOrErrno({ socket(requested.family, socketType, 0) }) {
        case .success(let value): descriptor = value
        case .failure(let error): throw .from(error, call: "socket", host: host, port: port)
        }
        do throws(HTTPServerError) {
            if let error = SocketCall.setOption(descriptor, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1) {
                throw .from(error, call: "setsockopt(SO_REUSEADDR)", host: host, port: port)
            }
            if let error = requested.withSockAddr({ address, length in SocketCall.errnoOf { bind(descriptor, address, length) } }) {
                throw .from(error, call: "bind", host: host, port: port)
            }
            // The kernel caps the backlog at net.core.somaxconn; asking for the most lets a burst of
            // page loads queue instead of being refused.
            if let error = SocketCall.errnoOf({ listen(descriptor, SOMAXCONN) }) {
                throw .from(error, call: "listen", host: host, port: port)
            }
            return ListeningSocket(descriptor: descriptor, address: try boundAddress(descriptor, host: host, port: port))
        } catch {
            SocketCall.close(descriptor)
            throw error
        }
    }

    /// Accepts one pending connection, non-blocking and close-on-exec from the start (`accept4`:
    /// no window in which a child process spawned by another thread inherits it).
    /// - Returns: the new descriptor and the peer's address (`nil` if not IPv4/IPv6), or the
    ///   `errno` (`EAGAIN` when none is pending).
    func accept(using calls: LinuxCalls.Functions) -> Result<(descriptor: Int32, peer: SocketAddress?), SocketErrno> {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                SocketCall.valueOrErrno {
                    calls.accept4(descriptor, address, &length, LinuxCalls.socketFlags)
                }
            }
        }
        return result.map { ($0, SocketAddress(storage, length: length)) }
    }

    /// The address `descriptor` is bound to (`getsockname`).
    private static func boundAddress(_ descriptor: Int32, host: String, port: UInt16) throws(HTTPServerError) -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let error = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                SocketCall.errnoOf { getsockname(descriptor, address, &length) }
            }
        }
        if let error { throw .from(error, call: "getsockname", host: host, port: port) }
        guard let address = SocketAddress(storage, length: length) else {
            throw .system(call: "getsockname", code: EAFNOSUPPORT)
        }
        return address
    }
}
