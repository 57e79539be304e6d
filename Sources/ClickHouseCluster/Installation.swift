import Foundation

/// Where the programs a cluster runs are on this machine: Debian's `clickhouse-server` and
/// `zookeeper` packages (or the same programs elsewhere on the `PATH`), and `setpriv` from
/// util-linux, which ties each child's life to the thread that launched it.
struct Installation: Sendable {
    /// `clickhouse-server`.
    var server: URL
    /// `java`, for ZooKeeper; `nil` when missing.
    var java: URL?
    /// ZooKeeper's class path (its jar, and a logger binding when there is one); empty when missing.
    var zooKeeperClassPath: [String]
    /// `setpriv`; `nil` when missing (children then outlive a crashed test process; the next
    /// start removes them, see ``Leftovers``).
    var setpriv: URL?

    /// Whether ZooKeeper can run here.
    var hasZooKeeper: Bool { java != nil && !zooKeeperClassPath.isEmpty }

    /// What is installed; `nil` when `clickhouse-server` itself is missing.
    static func find() -> Installation? {
        guard let server = executable("clickhouse-server", also: ["/usr/sbin", "/usr/bin"]) else { return nil }
        let jars = "/usr/share/java"
        var classPath: [String] = []
        if FileManager.default.fileExists(atPath: "\(jars)/zookeeper.jar") {
            // The jar's manifest names its own dependencies (slf4j-api among them) but no
            // logger: without slf4j-simple ZooKeeper logs nothing, and a failed start has no tail.
            classPath = ["\(jars)/zookeeper.jar"]
            if FileManager.default.fileExists(atPath: "\(jars)/slf4j-simple.jar") {
                classPath.append("\(jars)/slf4j-simple.jar")
            }
        }
        return Installation(
            server: server, java: executable("java", also: ["/usr/bin"]), zooKeeperClassPath: classPath,
            setpriv: executable("setpriv", also: ["/usr/bin"]))
    }

    /// The first executable file called `name` in the `PATH`'s directories or in `also`.
    private static func executable(_ name: String, also: [String]) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + also
        return directories.lazy.map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
            .map { URL(fileURLWithPath: $0) }
    }
}
