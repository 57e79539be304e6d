/// What the machine looked like when a logging session started.
///
/// A snapshot is recorded with each session so that a log read weeks later can be
/// interpreted in context: an error burst right after a kernel upgrade, or on a
/// host that was nearly out of memory or disk, reads very differently.
///
/// Every field is best effort. Values the machine does not expose (no DMI table in
/// a VM or container, no `/proc` in a sandbox) are empty, zero or `nil` rather than
/// errors, because failing to describe the host must never stop a store from opening.
public struct HostSnapshot: Codable, Sendable, Equatable {
    /// The host name as returned by `gethostname`.
    public var hostname: String
    /// The operating system's name from `os-release` `NAME`, such as "Debian GNU/Linux".
    public var osName: String
    /// The operating system's version: `os-release` `VERSION_ID`, else `VERSION`, else empty.
    public var osVersion: String
    /// The operating system's display name from `os-release` `PRETTY_NAME`.
    public var osPrettyName: String
    /// The kernel release as reported by `uname`, such as "6.1.0-18-amd64".
    public var kernelVersion: String
    /// The hardware architecture as reported by `uname`, such as "x86_64" or "aarch64".
    public var architecture: String
    /// The server's model from the DMI table (`product_name`), such as "PowerEdge R650".
    ///
    /// Machines without DMI data (common on ARM) report their device-tree model instead;
    /// `nil` when neither exists, as in many VMs and containers.
    public var productName: String?
    /// The server's manufacturer from the DMI table (`sys_vendor`), or `nil` when absent.
    public var vendor: String?
    /// The processor model from `/proc/cpuinfo`, or empty when it cannot be determined.
    public var cpuModel: String
    /// The number of CPUs online when the snapshot was taken.
    public var cpuCount: Int
    /// Total physical memory in bytes.
    public var memoryTotal: Int64
    /// Memory in bytes available to new work without swapping, as estimated by the kernel.
    public var memoryAvailable: Int64
    /// Size in bytes of the volume holding the store.
    public var diskTotal: Int64
    /// Bytes on the store's volume that an unprivileged process may still write.
    public var diskFree: Int64
    /// Seconds since the machine booted.
    public var uptime: Double
    /// The machine's network interfaces, sorted by name, loopback included.
    public var networkInterfaces: [NetworkInterface]

    /// A network interface and the IP addresses assigned to it.
    public struct NetworkInterface: Codable, Sendable, Equatable {
        /// The interface name, such as "eth0" or "lo".
        public var name: String
        /// IPv4 and IPv6 addresses in their textual form; empty when the interface
        /// exists but has no address, which is itself useful when diagnosing a network outage.
        public var addresses: [String]

        /// Creates an interface description.
        public init(name: String, addresses: [String]) {
            self.name = name
            self.addresses = addresses
        }
    }

    /// Creates a snapshot from explicit values; mostly useful for tests and tools.
    public init(
        hostname: String = "",
        osName: String = "",
        osVersion: String = "",
        osPrettyName: String = "",
        kernelVersion: String = "",
        architecture: String = "",
        productName: String? = nil,
        vendor: String? = nil,
        cpuModel: String = "",
        cpuCount: Int = 0,
        memoryTotal: Int64 = 0,
        memoryAvailable: Int64 = 0,
        diskTotal: Int64 = 0,
        diskFree: Int64 = 0,
        uptime: Double = 0,
        networkInterfaces: [NetworkInterface] = []
    ) {
        self.hostname = hostname
        self.osName = osName
        self.osVersion = osVersion
        self.osPrettyName = osPrettyName
        self.kernelVersion = kernelVersion
        self.architecture = architecture
        self.productName = productName
        self.vendor = vendor
        self.cpuModel = cpuModel
        self.cpuCount = cpuCount
        self.memoryTotal = memoryTotal
        self.memoryAvailable = memoryAvailable
        self.diskTotal = diskTotal
        self.diskFree = diskFree
        self.uptime = uptime
        self.networkInterfaces = networkInterfaces
    }
}

/// The process that opened a logging session.
public struct AppSnapshot: Codable, Sendable, Equatable {
    /// The process name, taken from the executable's file name.
    public var name: String
    /// The application's version as supplied through the store's configuration;
    /// `nil` unless the app provides one, since a binary cannot reliably know its own.
    public var version: String?
    /// The process identifier.
    public var pid: Int32
    /// The command-line arguments, including the executable path first.
    public var arguments: [String]
    /// The process's resident memory in bytes when the snapshot was taken.
    public var residentMemory: Int64

    /// Creates an app snapshot from explicit values; mostly useful for tests and tools.
    public init(
        name: String,
        version: String? = nil,
        pid: Int32,
        arguments: [String] = [],
        residentMemory: Int64 = 0
    ) {
        self.name = name
        self.version = version
        self.pid = pid
        self.arguments = arguments
        self.residentMemory = residentMemory
    }
}

extension HostSnapshot {
    /// Describes the differences between this snapshot and an earlier one that are
    /// worth telling a person about: a change of operating system name or version,
    /// or of kernel release.
    ///
    /// Memory, disk, uptime and addresses change all the time and are deliberately
    /// ignored. A field that is empty on either side is also ignored, because that
    /// means it could not be read, not that the machine changed.
    ///
    /// - Parameter previous: The snapshot of an earlier session.
    /// - Returns: One sentence per difference, such as
    ///   "Kernel changed from 6.1.0-17-amd64 to 6.1.0-18-amd64"; empty when nothing relevant changed.
    public func changes(since previous: HostSnapshot) -> [String] {
        var result: [String] = []

        let osKnown = !(osName.isEmpty && osVersion.isEmpty)
            && !(previous.osName.isEmpty && previous.osVersion.isEmpty)
        if osKnown && (osName != previous.osName || osVersion != previous.osVersion) {
            var before = previous.osLabel
            var after = osLabel
            // Pretty names can coincide while NAME/VERSION_ID differ (a distro that
            // does not put the version in PRETTY_NAME); the plain form then shows why.
            if before == after {
                before = previous.plainOSLabel
                after = plainOSLabel
            }
            result.append("OS changed from \(before) to \(after)")
        }

        if !kernelVersion.isEmpty && !previous.kernelVersion.isEmpty
            && kernelVersion != previous.kernelVersion
        {
            result.append("Kernel changed from \(previous.kernelVersion) to \(kernelVersion)")
        }

        return result
    }

    private var osLabel: String {
        osPrettyName.isEmpty ? plainOSLabel : osPrettyName
    }

    private var plainOSLabel: String {
        switch (osName.isEmpty, osVersion.isEmpty) {
        case (false, false): "\(osName) \(osVersion)"
        case (false, true): osName
        case (true, false): osVersion
        case (true, true): "unknown"
        }
    }
}
