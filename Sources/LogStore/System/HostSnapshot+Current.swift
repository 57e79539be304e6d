public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// This runs on every store open, so it talks to the kernel directly: a handful of
// open/read calls on /proc and /sys plus uname, statvfs and getifaddrs. Reading a file
// this way costs about the same as String(contentsOfFile:) (both ~5-35 µs here), but it
// can stop after a prefix, which matters for /proc/cpuinfo, and has no throwing path.
//
// The parsers are pure functions in HostSnapshot+Parsing.swift (os-release, shared helpers) and
// HostSnapshot+ProcFiles.swift (/proc/meminfo, /proc/cpuinfo, /proc/uptime); the network
// interfaces come from HostSnapshot+Network.swift, the process's own figures from
// AppSnapshot+Current.swift.

extension HostSnapshot {
    /// Reads the current machine, as a session records it when a store opens: what the live
    /// console shows as "now" beside the session's snapshot. `volume` is a path on the volume
    /// whose disk figures are reported.
    ///
    /// Never fails: any source that is missing or unreadable leaves its fields empty or zero,
    /// because a store must still open on a locked-down or unusual host.
    public static func current(volume: URL) -> HostSnapshot {
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

    // MARK: System access

    /// Reads up to `limit` bytes of a file; `nil` when it cannot be opened.
    ///
    /// Invalid UTF-8 is repaired with replacement characters rather than rejected,
    /// since a half-readable value is more useful than none.
    static func readText(_ path: String, limit: Int = 64 * 1024) -> String? {
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
}
