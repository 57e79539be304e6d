import Foundation
import Glibc

/// The few socket calls the cluster needs on 127.0.0.1: free ports to give its processes, and a
/// short exchange with ZooKeeper's four-letter commands.
enum LoopbackSocket {
    /// `count` distinct TCP ports that were free on 127.0.0.1 a moment ago, all below the kernel's
    /// ephemeral range: the kernel gives those to outgoing connections, so a port from that range
    /// could be taken by any client's socket while its server is down for a restart (a restarted
    /// replica then failed with "Address already in use"). Each candidate, picked at random, is
    /// bound to prove it free, and all stay bound until every port is chosen, so no two are the
    /// same. Another process could still take one before the server binds it; the server then
    /// fails to start and says so.
    static func freePorts(_ count: Int) throws -> [Int] {
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        let candidates = 10_000..<max(10_001, ephemeralRangeStart())
        var ports: [Int] = []
        var attempts = 0
        while ports.count < count {
            attempts += 1
            guard attempts <= 1_000 else { throw failure("bind (no free port below \(candidates.upperBound))") }
            let port = Int.random(in: candidates)
            guard !ports.contains(port) else { continue }
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw failure("socket") }
            var address = loopback(port: port)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                close(descriptor)
                continue
            }
            descriptors.append(descriptor)
            ports.append(port)
        }
        return ports
    }

    /// The first port of the kernel's ephemeral range (`net.ipv4.ip_local_port_range`), or
    /// Linux's default 32768 when it cannot be read.
    private static func ephemeralRangeStart() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8),
              let first = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first,
              let start = Int(first)
        else { return 32_768 }
        return start
    }

    /// Sends `command` to 127.0.0.1:`port` and returns everything the peer writes until it
    /// closes, or `nil` when it cannot connect or does not finish within `seconds` (ZooKeeper
    /// answers a four-letter command and closes the connection). Blocking.
    static func exchange(_ command: String, port: Int, seconds: Double) -> String? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // A send or receive timeout bounds every call below; connect on loopback is refused or
        // accepted at once.
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        let request = Array(command.utf8)
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) })
            == request.count
        else { return nil }
        let deadline = Date().addingTimeInterval(seconds)
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return String(decoding: answer, as: UTF8.self) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            answer += buffer[0..<count]
        }
        return nil
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    private static func failure(_ call: String) -> ClickHouseClusterError {
        ClickHouseClusterError(.launchFailed, "could not pick a free port: \(call): \(String(cString: strerror(errno)))")
    }
}
