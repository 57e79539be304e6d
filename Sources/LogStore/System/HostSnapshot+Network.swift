import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The machine's network interfaces and their numeric addresses, from getifaddrs.

extension HostSnapshot {
    /// Every interface, with or without an address, sorted by name.
    static func currentNetworkInterfaces() -> [NetworkInterface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }

        // getifaddrs yields one entry per (interface, address) pair, plus a link-layer
        // entry per interface, so interfaces without any IP address still appear.
        var addressesByName: [String: [String]] = [:]
        var cursor = list
        while let entry = cursor {
            cursor = entry.pointee.ifa_next
            guard let rawName = entry.pointee.ifa_name else { continue }
            let name = String(cString: rawName)
            var addresses = addressesByName[name] ?? []
            if let address = entry.pointee.ifa_addr, let text = numericAddress(address),
               !addresses.contains(text)
            {
                addresses.append(text)
            }
            addressesByName[name] = addresses
        }
        return addressesByName
            .map { NetworkInterface(name: $0.key, addresses: $0.value) }
            .sorted { $0.name < $1.name }
    }

    private static func numericAddress(_ address: UnsafeMutablePointer<sockaddr>) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let converted: Bool
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var raw = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            converted = inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count)) != nil
        case AF_INET6:
            var raw = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            converted = inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil
        default:
            return nil
        }
        guard converted else { return nil }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(truncatingIfNeeded: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
