import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// This runs on every store open, so it talks to the kernel directly: a handful of
// open/read calls on /proc and /sys plus uname, statvfs and getifaddrs. Reading a file
// this way costs about the same as String(contentsOfFile:) (both ~5-35 µs here), but it
// can stop after a prefix, which matters for /proc/cpuinfo, and has no throwing path.

extension HostSnapshot {
    /// Reads the current machine; `volume` is a path on the volume whose disk figures are reported.
    ///
    /// Never fails: any source that is missing or unreadable leaves its fields empty or zero,
    /// because a store must still open on a locked-down or unusual host.
    static func current(volume: URL) -> HostSnapshot {
        var snapshot = HostSnapshot()

        snapshot.hostname = currentHostname()

        if let text = readText("/etc/os-release") ?? readText("/usr/lib/os-release") {
            let os = parseOSRelease(text)
            snapshot.osName = os.name
            snapshot.osVersion = os.version
            snapshot.osPrettyName = os.prettyName
        }

        var names = utsname()
        if uname(&names) == 0 {
            snapshot.kernelVersion = cString(names.release)
            snapshot.architecture = cString(names.machine)
        }

        snapshot.productName = readTrimmedValue("/sys/class/dmi/id/product_name")
            // ARM servers and boards usually have no DMI table but name the board in
            // the device tree, which is the closest thing to a model they offer.
            ?? readTrimmedValue("/sys/firmware/devicetree/base/model")
        snapshot.vendor = readTrimmedValue("/sys/class/dmi/id/sys_vendor")

        // Only the first processor's block is needed, and the kernel generates the file
        // block by block as it is read (on x86 with a frequency reading each), so a short
        // prefix keeps this cheap on machines with hundreds of CPUs.
        if let text = readText("/proc/cpuinfo", limit: 8 * 1024) {
            snapshot.cpuModel = parseCPUModel(text)
        }
        snapshot.cpuCount = max(0, sysconf(Int32(_SC_NPROCESSORS_ONLN)))

        if let text = readText("/proc/meminfo") {
            let memory = parseMemInfo(text)
            snapshot.memoryTotal = memory.total
            snapshot.memoryAvailable = memory.available
        }

        let disk = diskSpace(at: volume)
        snapshot.diskTotal = disk.total
        snapshot.diskFree = disk.free

        if let text = readText("/proc/uptime") {
            snapshot.uptime = parseUptime(text)
        }

        snapshot.networkInterfaces = currentNetworkInterfaces()
        return snapshot
    }

    // MARK: Parsers
    //
    // Pure functions over file text so tests can feed them anything. They must accept
    // whatever a kernel, distro or broken container hands over: unknown keys, odd
    // spacing, truncated lines, replacement characters from invalid UTF-8.
    //
    // They work on UTF-8 bytes rather than Characters: grapheme segmentation made
    // parsing cost several times more than reading the files, and every delimiter
    // involved is ASCII, so byte offsets are always valid split points.

    /// The fields of `os-release` that a snapshot keeps.
    struct OSRelease: Equatable {
        var name: String
        var version: String
        var prettyName: String
    }

    /// Parses `os-release` text (shell-like `KEY=value` lines, values optionally quoted).
    static func parseOSRelease(_ text: String) -> OSRelease {
        var name: String?
        var versionID: String?
        var version: String?
        var pretty: String?
        for line in lines(text) {
            let line = trimmedBytes(line)
            guard line.first != UInt8(ascii: "#"),
                  let equals = line.firstIndex(of: UInt8(ascii: "="))
            else { continue }
            let key = trimmedBytes(line[..<equals])
            let value = { unquoteShellValue(trimmedBytes(line[line.index(after: equals)...])) }
            // A repeated key keeps its last value, as it would for a shell sourcing the file.
            if key.elementsEqual("NAME".utf8) { name = value() }
            else if key.elementsEqual("VERSION_ID".utf8) { versionID = value() }
            else if key.elementsEqual("VERSION".utf8) { version = value() }
            else if key.elementsEqual("PRETTY_NAME".utf8) { pretty = value() }
        }

        let resolvedName = name ?? ""
        let resolvedVersion = [versionID, version].lazy.compactMap { $0 }.first { !$0.isEmpty } ?? ""
        var resolvedPretty = pretty ?? ""
        if resolvedPretty.isEmpty {
            resolvedPretty = [resolvedName, resolvedVersion].filter { !$0.isEmpty }.joined(separator: " ")
        }
        return OSRelease(name: resolvedName, version: resolvedVersion, prettyName: resolvedPretty)
    }

    /// Parses `/proc/meminfo`, returning total and available memory in bytes.
    ///
    /// Kernels before 3.14 lack `MemAvailable`; the classic free + buffers + cache
    /// estimate stands in for it there.
    static func parseMemInfo(_ text: String) -> (total: Int64, available: Int64) {
        var total: Int64?
        var available: Int64?
        var free: Int64?
        var buffers: Int64?
        var cached: Int64?
        for line in lines(text) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let key = trimmedBytes(line[..<colon])
            let value = { memInfoBytes(line[line.index(after: colon)...]) }
            if key.elementsEqual("MemTotal".utf8) { total = total ?? value() }
            else if key.elementsEqual("MemAvailable".utf8) { available = available ?? value() }
            else if key.elementsEqual("MemFree".utf8) { free = free ?? value() }
            else if key.elementsEqual("Buffers".utf8) { buffers = buffers ?? value() }
            else if key.elementsEqual("Cached".utf8) { cached = cached ?? value() }
            // The keys of interest are at the top; the rest of the file is dozens of lines.
            if total != nil, available != nil { break }
        }
        let estimate = free.map { saturatingSum($0, buffers ?? 0, cached ?? 0) }
        return (total ?? 0, available ?? estimate ?? 0)
    }

    /// Extracts a human-readable processor model from `/proc/cpuinfo` text.
    ///
    /// x86 says `model name`; other architectures use other keys, and modern ARM64
    /// kernels give only implementer and part numbers, which are named where known.
    static func parseCPUModel(_ text: String) -> String {
        // Case matters: "processor" on x86 is the CPU index, "Processor" on old ARM is the model.
        let modelKeys = ["model name", "Processor", "cpu model", "cpu", "Hardware"]
        var found: [String?] = Array(repeating: nil, count: modelKeys.count)
        var implementer: String?
        var part: String?
        for line in lines(text) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let key = trimmedBytes(line[..<colon])
            let value = trimmedBytes(line[line.index(after: colon)...])
            guard !value.isEmpty else { continue }
            // The first processor's block is representative; later blocks only repeat it.
            if let slot = modelKeys.firstIndex(where: { key.elementsEqual($0.utf8) }) {
                if found[slot] == nil { found[slot] = String(decoding: value, as: UTF8.self) }
                if slot == 0 { break }
            } else if key.elementsEqual("CPU implementer".utf8) {
                implementer = implementer ?? String(decoding: value, as: UTF8.self)
            } else if key.elementsEqual("CPU part".utf8) {
                part = part ?? String(decoding: value, as: UTF8.self)
            }
        }
        if let model = found.lazy.compactMap({ $0 }).first {
            return model
        }
        if let implementer, let part {
            return armCPUName(implementer: implementer, part: part)
        }
        return ""
    }

    /// Parses `/proc/uptime`, whose first field is seconds since boot.
    static func parseUptime(_ text: String) -> Double {
        guard let first = text.utf8.split(whereSeparator: isSpace).first,
              let seconds = Double(String(decoding: first, as: UTF8.self)),
              seconds.isFinite, seconds >= 0
        else { return 0 }
        return seconds
    }

    /// The text with ASCII whitespace and NULs removed from both ends; device-tree
    /// strings end in a NUL and sysfs values in a newline.
    static func trimmed(_ text: String) -> String {
        String(decoding: trimmedBytes(text.utf8[...]), as: UTF8.self)
    }

    // MARK: Parsing helpers

    typealias Bytes = Substring.UTF8View

    private static func lines(_ text: String) -> [Bytes] {
        text.utf8[...].split(omittingEmptySubsequences: true) {
            $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r")
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || (byte >= 0x09 && byte <= 0x0D) || byte == 0
    }

    private static func trimmedBytes(_ bytes: Bytes) -> Bytes {
        guard let start = bytes.firstIndex(where: { !isSpace($0) }),
              let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[start...last]
    }

    private static func unquoteShellValue(_ value: Bytes) -> String {
        let doubleQuote = UInt8(ascii: "\""), singleQuote = UInt8(ascii: "'")
        guard let quote = value.first, quote == doubleQuote || quote == singleQuote else {
            return String(decoding: value, as: UTF8.self)
        }
        var body = value.dropFirst()
        // A missing closing quote is tolerated: the rest of the line is the value.
        if body.last == quote { body = body.dropLast() }
        guard quote == doubleQuote, body.contains(UInt8(ascii: "\\")) else {
            return String(decoding: body, as: UTF8.self)
        }

        var result: [UInt8] = []
        result.reserveCapacity(body.count)
        var escaping = false
        for byte in body {
            if !escaping && byte == UInt8(ascii: "\\") {
                escaping = true
            } else {
                result.append(byte)
                escaping = false
            }
        }
        if escaping { result.append(UInt8(ascii: "\\")) }
        return String(decoding: result, as: UTF8.self)
    }

    private static func memInfoBytes(_ text: Bytes) -> Int64? {
        let parts = text.split(whereSeparator: isSpace)
        guard let digits = parts.first, !digits.isEmpty, digits.count <= 18,
              digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let value = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
        let unit = parts.dropFirst().first
        guard let unit, unit.count == 2,
              unit.first.map({ $0 | 0x20 }) == UInt8(ascii: "k"),
              unit.last.map({ $0 | 0x20 }) == UInt8(ascii: "b")
        else { return value }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: 1024)
        return overflow ? nil : bytes
    }

    private static func saturatingSum(_ values: Int64...) -> Int64 {
        values.reduce(0) { sum, value in
            let (result, overflow) = sum.addingReportingOverflow(value)
            return overflow ? Int64.max : result
        }
    }

    private static func armCPUName(implementer: String, part: String) -> String {
        let vendors: [String: String] = [
            "0x41": "ARM", "0x42": "Broadcom", "0x43": "Cavium", "0x48": "HiSilicon",
            "0x4e": "NVIDIA", "0x50": "APM", "0x51": "Qualcomm", "0x61": "Apple",
            "0xc0": "Ampere",
        ]
        // Only the Arm-designed cores that dominate servers (Graviton, Altra, Grace)
        // and common boards; anything else is shown by number, which is still searchable.
        let armCores: [String: String] = [
            "0xd03": "Cortex-A53", "0xd05": "Cortex-A55", "0xd08": "Cortex-A72",
            "0xd0b": "Cortex-A76", "0xd0c": "Neoverse-N1", "0xd40": "Neoverse-V1",
            "0xd49": "Neoverse-N2", "0xd4f": "Neoverse-V2", "0xd8e": "Neoverse-N3",
            "0xd84": "Neoverse-V3",
        ]
        let implementerKey = implementer.lowercased()
        let vendor = vendors[implementerKey] ?? "implementer \(implementer)"
        if implementerKey == "0x41", let core = armCores[part.lowercased()] {
            return "\(vendor) \(core)"
        }
        return "\(vendor) part \(part)"
    }

    // MARK: System access

    /// Reads up to `limit` bytes of a file; `nil` when it cannot be opened.
    ///
    /// Invalid UTF-8 is repaired with replacement characters rather than rejected,
    /// since a half-readable value is more useful than none.
    fileprivate static func readText(_ path: String, limit: Int = 64 * 1024) -> String? {
        guard case .success(let descriptor) = Files.openDescriptor(path, O_RDONLY) else {
            return nil
        }
        defer { close(descriptor) }

        var hitLimit = false
        let bytes = [UInt8](unsafeUninitializedCapacity: limit) { buffer, count in
            count = 0
            guard let base = buffer.baseAddress else { return }
            while count < limit {
                guard case .success(let result) = SystemCall.valueOrErrno({ read(descriptor, base + count, limit - count) }),
                    result > 0
                else { break }
                count += result
            }
            hitLimit = count == limit
        }

        var usable = bytes[...]
        // A prefix read can end mid-line; a cut-off value would be wrong, not just short.
        if hitLimit, let lastNewline = bytes.lastIndex(of: UInt8(ascii: "\n")) {
            usable = bytes[...lastNewline]
        }
        return String(decoding: usable, as: UTF8.self)
    }

    private static func readTrimmedValue(_ path: String) -> String? {
        guard let text = readText(path, limit: 4096) else { return nil }
        let value = trimmed(text)
        return value.isEmpty ? nil : value
    }

    private static func cString<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private static func currentHostname() -> String {
        // HOST_NAME_MAX is 64 on Linux; the extra room keeps a terminating NUL guaranteed.
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(truncatingIfNeeded: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func diskSpace(at volume: URL) -> (total: Int64, free: Int64) {
        var path = volume.standardizedFileURL.path
        // The store's directory may not exist yet when this runs for a new store; its
        // nearest existing ancestor lives on the volume it will be created on.
        while true {
            var stats = statvfs()
            if statvfs(path, &stats) == 0 {
                let blockSize = Int64(clamping: stats.f_frsize)
                return (
                    saturatingProduct(Int64(clamping: stats.f_blocks), blockSize),
                    saturatingProduct(Int64(clamping: stats.f_bavail), blockSize)
                )
            }
            guard path != "/", let slash = path.lastIndex(of: "/") else { return (0, 0) }
            path = slash == path.startIndex ? "/" : String(path[..<slash])
        }
    }

    private static func saturatingProduct(_ a: Int64, _ b: Int64) -> Int64 {
        let (result, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? Int64.max : result
    }

    private static func currentNetworkInterfaces() -> [NetworkInterface] {
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

extension AppSnapshot {
    /// Describes the running process; `version` is whatever the app configured, if anything.
    static func current(version: String?) -> AppSnapshot {
        let info = ProcessInfo.processInfo
        let arguments = info.arguments
        var name = arguments.first.flatMap { $0.split(separator: "/").last.map(String.init) } ?? ""
        if name.isEmpty { name = info.processName }

        var resident: Int64 = 0
        if let text = HostSnapshot.readText("/proc/self/statm", limit: 1024) {
            let pageSize = Int64(max(0, sysconf(Int32(_SC_PAGESIZE))))
            let (bytes, overflow) = parseResidentPages(text).multipliedReportingOverflow(by: pageSize)
            resident = overflow ? Int64.max : bytes
        }

        return AppSnapshot(
            name: name,
            version: version,
            pid: getpid(),
            arguments: arguments,
            residentMemory: resident
        )
    }

    /// Parses `/proc/self/statm`, whose second field is the resident set size in pages.
    static func parseResidentPages(_ text: String) -> Int64 {
        let fields = text.split(whereSeparator: { $0.isWhitespace })
        guard fields.count > 1, let pages = Int64(fields[1]), pages >= 0 else { return 0 }
        return pages
    }
}
