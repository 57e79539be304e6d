import Foundation

/// The cluster's ZooKeeper: one standalone server on 127.0.0.1, its configuration, its launch
/// and the four-letter commands that say whether it is up and which sessions it still holds.
struct ZooKeeper: Sendable {
    /// Its client port.
    var port: Int
    /// Its directory (configuration, data, output).
    var directory: URL
    /// ZooKeeper counts time in ticks: sessions expire on a tick boundary, and the shortest
    /// session it grants is 2 ticks. 500 ms lets ClickHouse's 3 s sessions through and expires a
    /// killed server's session within 3.5 s.
    static let tickMilliseconds = 500

    /// Writes `zoo.cfg` and starts the server.
    func launch(installation: Installation) async throws -> ChildProcess {
        guard let java = installation.java, installation.hasZooKeeper else {
            throw ClickHouseClusterError(.notInstalled, "ZooKeeper needs java and /usr/share/java/zookeeper.jar")
        }
        let data = directory.appendingPathComponent("data", isDirectory: true)
        let configuration = directory.appendingPathComponent("zoo.cfg")
        do {
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            try """
            tickTime=\(Self.tickMilliseconds)
            dataDir=\(data.path)
            clientPort=\(port)
            clientPortAddress=127.0.0.1
            maxClientCnxns=0
            # Tests lose nothing if ZooKeeper loses its last writes: skip the fsync of every one.
            forceSync=no
            # The transaction log grows in 64 MB steps by default; 4 MB is plenty for a test.
            preAllocSize=4096
            # No Jetty admin server on port 8080 (a second cluster would collide on it).
            admin.enableServer=false
            4lw.commands.whitelist=ruok,dump,mntr,srvr
            """.write(to: configuration, atomically: true, encoding: .utf8)
        } catch {
            throw ClickHouseClusterError(.launchFailed, "could not write ZooKeeper's configuration: \(error)")
        }
        let arguments = [
            // A small heap, the serial collector and the first-tier JIT: ZooKeeper serves two
            // clients here, so start time and memory matter more than throughput.
            "-Xms16m", "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k",
            // No /tmp/hsperfdata_<user> file.
            "-XX:-UsePerfData",
            "-Djava.net.preferIPv4Stack=true",
            "-cp", installation.zooKeeperClassPath.joined(separator: ":"),
            "org.apache.zookeeper.server.quorum.QuorumPeerMain", configuration.path,
        ]
        return try await ChildProcess.launch(
            name: "zookeeper", executable: java, arguments: arguments, directory: directory,
            installation: installation)
    }

    /// Whether it serves clients: `srvr` reports its mode. Not `ruok`: that answers `imok` as
    /// soon as the port is open, while sessions are still refused ("ZooKeeperServer not
    /// running"), and a ClickHouse server that meets that refusal crashes later (see
    /// ``ClickHouseCluster``'s `launchAll`). Blocking, at most `seconds`.
    func isServing(seconds: Double = 1) -> Bool {
        LoopbackSocket.exchange("srvr", port: port, seconds: seconds)?.contains("Mode: ") == true
    }

    /// ZooKeeper's sessions, from its `dump`: all it holds (`open`, listed under "Session Sets",
    /// one `0x…` per line) and those with a client connected (`connected`, under "Connections
    /// dump": `ip: /127.0.0.1:… sessionId: 0x…`); a killed client's session is open but not
    /// connected until it expires. `nil` when ZooKeeper does not answer. Blocking, at most
    /// `seconds`.
    func sessions(seconds: Double = 1) -> (open: Set<String>, connected: Set<String>)? {
        guard let dump = LoopbackSocket.exchange("dump", port: port, seconds: seconds),
            dump.contains("SessionTracker")
        else { return nil }
        var open = Set<String>()
        var connected = Set<String>()
        for line in dump.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("0x"), !text.hasSuffix(":"), !text.contains(" ") {
                open.insert(text)
            } else if let range = text.range(of: "sessionId: ") {
                let session = text[range.upperBound...].trimmingCharacters(in: .whitespaces)
                // 0x0: a connection without a session (this `dump` itself).
                if session != "0x0" { connected.insert(session) }
            }
        }
        return (open, connected)
    }
}
