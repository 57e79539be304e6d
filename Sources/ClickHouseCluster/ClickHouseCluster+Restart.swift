import Foundation

extension ClickHouseCluster {
    /// Starts server `server` again on the same ports and data directory, and returns once it
    /// answers `SELECT 1`. A server still running is killed first. Parts it wrote but never
    /// committed to ZooKeeper are set aside (they were never acknowledged), not a reason to stop.
    ///
    /// Before the launch it waits until ZooKeeper has let go of every session whose client is
    /// gone (the killed server's, up to 3.5 s after the kill): a replica that starts while its
    /// old session still marks it active cannot register (`REPLICA_IS_ALREADY_ACTIVE`), and
    /// ClickHouse 18.16 tries again only about 10 s later.
    ///
    /// - Throws: ``ClickHouseClusterError`` with code ``ClickHouseClusterError/Code/sessionLingered``
    ///   when ZooKeeper still holds the old session after 10 s,
    ///   ``ClickHouseClusterError/Code/startTimedOut`` (with the tail of its output and log) when
    ///   the server ends or does not answer within 30 s, ``ClickHouseClusterError/Code/stopped``
    ///   after ``stop()``.
    public func restart(server index: Int) async throws {
        precondition(serverList.indices.contains(index), "no server \(index) in a cluster of \(serverList.count)")
        guard !isStopped else { throw ClickHouseClusterError(.stopped, "the cluster was stopped") }
        kill(server: index)
        try await waitForOrphanedSessions()
        try configuration(of: index).allowRestoringParts()
        let process = try await launch(server: index)
        try keep(process) { $0.servers[index] = process }
        try await waitUntilAnswering(server: index)
        try await waitForZooKeeperSessions()
    }

    /// Waits until ZooKeeper holds no session without a connection, at most the session timeout
    /// and 7 s more. Returns at once without ZooKeeper, or when it does not answer (the server
    /// then starts anyway and connects when it can).
    private func waitForOrphanedSessions() async throws {
        guard let zooKeeper else { return }
        let bound = Double(Self.sessionTimeoutMilliseconds) / 1000 + 7
        var lingering: Set<String> = []
        let expired = try await Waiting.until(seconds: bound, every: .milliseconds(100)) {
            guard let sessions = await Waiting.offPool({ zooKeeper.sessions() }) else { return true }
            lingering = sessions.open.subtracting(sessions.connected)
            return lingering.isEmpty
        }
        guard expired else {
            throw ClickHouseClusterError(
                .sessionLingered,
                "ZooKeeper still holds the sessions \(lingering.sorted()) of killed servers after \(Int(bound)) s")
        }
    }

    /// Waits until ZooKeeper has a connected session for every running server, at most
    /// ``startSeconds``, and a moment more.
    ///
    /// A server answers `SELECT 1` before its DDL worker has taken its ZooKeeper session, and
    /// ClickHouse 18.16 crashes (SIGSEGV, a null ZooKeeper in `zkutil::ZooKeeper::createImpl`) on
    /// an `ON CLUSTER` statement that comes in between. Each server has one session, which its
    /// DDL worker opens at start (or takes from the tables that opened it first).
    func waitForZooKeeperSessions() async throws {
        guard let zooKeeper else { return }
        let running = state.withLock { $0.servers.filter { $0?.isRunning == true }.count }
        var connected = 0
        let ready = try await Waiting.until(seconds: Self.startSeconds) {
            connected = await Waiting.offPool({ zooKeeper.sessions() })?.connected.count ?? 0
            return connected >= running
        }
        guard ready else {
            throw ClickHouseClusterError(
                .startTimedOut,
                "only \(connected) of \(running) servers connected to ZooKeeper within \(Int(Self.startSeconds)) s")
        }
        // The DDL worker keeps the session a moment after ZooKeeper granted it.
        try await Task.sleep(for: .milliseconds(100))
    }

    /// The configuration files of server `index`.
    func configuration(of index: Int) -> ServerConfiguration {
        ServerConfiguration(
            server: serverList[index], replicas: serverList, clusterName: clusterName, zooKeeperPort: zooKeeper?.port,
            sessionTimeoutMilliseconds: Self.sessionTimeoutMilliseconds)
    }

    /// Launches server `index` with its configuration (already written).
    func launch(server index: Int) async throws -> ChildProcess {
        let configuration = configuration(of: index)
        return try await ChildProcess.launch(
            name: serverList[index].name, executable: installation.server,
            arguments: ["--config-file=\(configuration.configFile.path)"],
            directory: serverList[index].directory, logFile: configuration.logFile, installation: installation)
    }

    /// Waits until server `index` answers `SELECT 1` with `1`, at most ``startSeconds``.
    ///
    /// - Throws: ``ClickHouseClusterError/Code/startTimedOut`` with the tail of its output and
    ///   log, at once when it ended, or at the bound.
    func waitUntilAnswering(server index: Int) async throws {
        let server = serverList[index]
        guard let process = state.withLock({ $0.servers[index] }) else {
            throw ClickHouseClusterError(.stopped, "\(server.name) is not running")
        }
        let answered = try await Waiting.until(seconds: Self.startSeconds) {
            if !process.isRunning { return true }
            // A refused connection is the expected answer while it starts: try again.
            let answer = try? await http.post(
                server.httpURL, body: Data("SELECT 1".utf8), seconds: 2, server: server.name)
            return answer?.status == 200 && answer?.body == Data("1\n".utf8)
        }
        guard answered, process.isRunning else {
            let what =
                process.isRunning
                ? "did not answer SELECT 1 on \(server.httpURL.absoluteString) within \(Int(Self.startSeconds)) s"
                : "ended while starting (\(process.ending))"
            throw ClickHouseClusterError(.startTimedOut, "\(server.name) \(what)\n\(process.tail())")
        }
    }
}
