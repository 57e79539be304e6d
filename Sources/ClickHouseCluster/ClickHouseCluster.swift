public import Foundation
import Glibc
import Synchronization

/// A real ClickHouse cluster on this machine, for tests and the benchmark: ZooKeeper and N
/// `clickhouse-server` processes on free loopback ports, all replicas of the one shard of a
/// cluster named ``clusterName``, each in a directory of its own.
///
///     let cluster = try await ClickHouseCluster.start(replicas: 2)
///     defer { cluster.stop() }
///     _ = try await cluster.query("""
///         CREATE TABLE t_local ON CLUSTER logstore (k UInt64, v UInt64)
///         ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/t', '{replica}', v) ORDER BY k
///         """)
///     _ = try await cluster.query("INSERT INTO t_local VALUES (1, 1)", server: 0)
///     cluster.kill(server: 1)                   // SIGKILL
///     try await cluster.restart(server: 1)      // same ports, same data; it catches up
///
/// Every server has the macros `{shard}` = `01` and `{replica}` = its name (`r0`, `r1`, …), the
/// `default` user without a password, `distributed_ddl` for `ON CLUSTER`, and ZooKeeper sessions
/// of 3 s, so a killed replica's session expires soon. ZooKeeper runs only when there is more
/// than one replica.
///
/// The children die with the test process even when it crashes (they run under
/// `setpriv --pdeathsig KILL`, launched from a thread that never ends); the directories of a
/// crashed run are removed by the next ``start(replicas:directory:)`` in the same parent.
/// ``stop()`` (or the last reference going away) kills everything and removes the directories.
///
/// Sendable: the processes, the only mutable state, are behind the `state` `Mutex`.
public final class ClickHouseCluster: Sendable {
    /// The cluster's name in every server's `<remote_servers>`: `logstore`, as in
    /// `ON CLUSTER logstore` and `Distributed(logstore, db, table, rand())`.
    public let clusterName: String
    /// The cluster's directory: one directory per server and one for ZooKeeper. Removed by
    /// ``stop()``.
    public let directory: URL

    /// The servers, in order: `servers[i]` is replica `r<i>`, the `server: i` of every method.
    public var servers: [Server] { serverList }

    /// ZooKeeper's session timeout in every server's configuration.
    static let sessionTimeoutMilliseconds = 3000
    /// How long a server (or ZooKeeper) may take to answer after its launch.
    static let startSeconds = 30.0

    let serverList: [Server]
    let installation: Installation
    let zooKeeper: ZooKeeper?
    let http = HTTPClient()
    let state: Mutex<State>

    /// The processes, and whether ``stop()`` ran.
    struct State {
        var zooKeeper: ChildProcess?
        var servers: [ChildProcess?]
        var stopped = false
    }

    private init(servers: [Server], directory: URL, installation: Installation, zooKeeper: ZooKeeper?) {
        clusterName = "logstore"
        serverList = servers
        self.directory = directory
        self.installation = installation
        self.zooKeeper = zooKeeper
        state = Mutex(State(servers: Array(repeating: nil, count: servers.count)))
    }

    deinit { stop() }

    /// Whether a cluster of `replicas` servers can run here: `clickhouse-server`, and for more
    /// than one replica `java` and ZooKeeper's jar (Debian's `clickhouse-server` and `zookeeper`
    /// packages).
    public static func isInstalled(replicas: Int) -> Bool {
        guard let installation = Installation.find() else { return false }
        return replicas <= 1 || installation.hasZooKeeper
    }

    /// Starts ZooKeeper (for more than one replica) and `replicas` servers, and returns once every
    /// server answers `SELECT 1` over HTTP and has its ZooKeeper session (so `ON CLUSTER` works
    /// at once).
    ///
    /// - Parameters:
    ///   - replicas: How many servers, 1 or more; all replicas of the one shard `01`.
    ///   - directory: Where the cluster's directory is made (`logstore-clickhouse-<UUID>`);
    ///     the system's temporary directory by default. Leftovers of crashed runs there are
    ///     removed first.
    /// - Throws: ``ClickHouseClusterError`` with code ``ClickHouseClusterError/Code/notInstalled``
    ///   when the programs are missing, ``ClickHouseClusterError/Code/startTimedOut`` (with the tail
    ///   of the output and log) when a process ended early or did not answer within 30 s, and
    ///   ``ClickHouseClusterError/Code/launchFailed`` when it could not be launched. Whatever was
    ///   started is stopped again.
    public static func start(replicas: Int, directory: URL? = nil) async throws -> ClickHouseCluster {
        precondition(replicas >= 1, "a cluster needs at least one replica")
        guard let installation = Installation.find() else {
            throw ClickHouseClusterError(.notInstalled, "clickhouse-server is not installed (apt-get install clickhouse-server)")
        }
        guard replicas == 1 || installation.hasZooKeeper else {
            throw ClickHouseClusterError(
                .notInstalled, "\(replicas) replicas need ZooKeeper: java and /usr/share/java/zookeeper.jar (apt-get install zookeeper)")
        }
        let parent = directory ?? FileManager.default.temporaryDirectory
        Leftovers.sweep(in: parent)
        let root = parent.appendingPathComponent("\(Leftovers.prefix)\(UUID().uuidString)", isDirectory: true)
        let usesZooKeeper = replicas > 1
        let ports: [Int]
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try Leftovers.claim(root)
            ports = try LoopbackSocket.freePorts(replicas * 3 + (usesZooKeeper ? 1 : 0))
        } catch let error as ClickHouseClusterError {
            try? FileManager.default.removeItem(at: root)
            throw error
        } catch {
            try? FileManager.default.removeItem(at: root)
            throw ClickHouseClusterError(.launchFailed, "could not make \(root.path): \(error)")
        }
        let servers = (0..<replicas).map {
            Server(index: $0, httpPort: ports[3 * $0], tcpPort: ports[3 * $0 + 1], interserverHTTPPort: ports[3 * $0 + 2], root: root)
        }
        let zooKeeper = usesZooKeeper
            ? ZooKeeper(port: ports[3 * replicas], directory: root.appendingPathComponent("zookeeper", isDirectory: true))
            : nil
        let cluster = ClickHouseCluster(servers: servers, directory: root, installation: installation, zooKeeper: zooKeeper)
        do {
            try await cluster.launchAll()
        } catch {
            cluster.stop()
            throw error
        }
        return cluster
    }

    /// Writes every configuration, launches ZooKeeper and waits until it answers, then launches
    /// the servers together and waits for all of them.
    ///
    /// In this order, and only then done when every server has its ZooKeeper session
    /// (``waitForZooKeeperSessions()``), because ClickHouse 18.16 crashes (SIGSEGV in
    /// `zkutil::ZooKeeper::createImpl`) on an `ON CLUSTER` statement while its DDL worker has no
    /// ZooKeeper session: before it took one, or when ZooKeeper was not serving at its start.
    private func launchAll() async throws {
        for index in serverList.indices { try configuration(of: index).write() }
        if let zooKeeper {
            let process = try await zooKeeper.launch(installation: installation)
            try keep(process) { $0.zooKeeper = process }
            let serving = try await Waiting.until(seconds: Self.startSeconds) {
                if !process.isRunning { return true }
                return await Waiting.offPool { zooKeeper.isServing() }
            }
            guard serving, process.isRunning else {
                let what =
                    process.isRunning
                    ? "did not serve (srvr) within \(Int(Self.startSeconds)) s" : "ended while starting (\(process.ending))"
                throw ClickHouseClusterError(.startTimedOut, "ZooKeeper on port \(zooKeeper.port) \(what)\n\(process.tail())")
            }
        }
        for index in serverList.indices {
            let process = try await launch(server: index)
            try keep(process) { $0.servers[index] = process }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in serverList.indices {
                group.addTask { try await self.waitUntilAnswering(server: index) }
            }
            try await group.waitForAll()
        }
        try await waitForZooKeeperSessions()
    }

    /// Stores `process`, just launched, in the state with `store`; kills it instead and throws
    /// ``ClickHouseClusterError/Code/stopped`` when ``stop()`` ran meanwhile.
    func keep(_ process: ChildProcess, _ store: (inout State) -> Void) throws {
        let stopped = state.withLock { state -> Bool in
            if !state.stopped { store(&state) }
            return state.stopped
        }
        guard !stopped else {
            _ = process.killAndWait()
            throw ClickHouseClusterError(.stopped, "the cluster was stopped")
        }
    }

    /// Whether ``stop()`` ran.
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Kills server `server` with SIGKILL and waits (at most 10 s) until it is gone. Its data and
    /// ports stay for ``restart(server:)``; ZooKeeper keeps its session (and so its replicas
    /// "active") for up to 3.5 s. Nothing happens when it is not running.
    public func kill(server index: Int) {
        precondition(serverList.indices.contains(index), "no server \(index) in a cluster of \(serverList.count)")
        let process = state.withLock { $0.servers[index] }
        _ = process?.killAndWait()
    }

    /// Kills every process (SIGKILL: the data is thrown away anyway), waits until each is gone
    /// (at most 10 s each) and removes the cluster's directory. Blocks for as long as that takes,
    /// about 30 ms for two replicas. Calling it again does nothing; queries and restarts throw
    /// ``ClickHouseClusterError/Code/stopped`` afterwards.
    public func stop() {
        let processes = state.withLock { state -> [ChildProcess] in
            guard !state.stopped else { return [] }
            state.stopped = true
            return state.servers.compactMap { $0 } + [state.zooKeeper].compactMap { $0 }
        }
        for process in processes { process.signal(SIGKILL) }
        for process in processes { _ = process.waitForExit(seconds: 10) }
        // Not thrown (stop() runs from deinit): a directory that stays is removed by a start's
        // sweep once this process has ended.
        try? FileManager.default.removeItem(at: directory)
    }

    /// The resident memory (RSS) of every running process, in bytes, by name: `zookeeper`,
    /// `r0`, `r1`, … (a process that is not running is left out).
    public func residentBytes() -> [String: Int] {
        let processes = state.withLock { $0.servers.compactMap { $0 } + [$0.zooKeeper].compactMap { $0 } }
        var sizes: [String: Int] = [:]
        for process in processes { sizes[process.name] = process.residentBytes }
        return sizes
    }
}
