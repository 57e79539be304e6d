import Foundation

/// The `config.xml` and `users.xml` of one server, complete (no include from /etc, no override on
/// the command line): ClickHouse 18.16 reads every setting below from these files.
struct ServerConfiguration {
    /// The server these files are for.
    var server: ClickHouseCluster.Server
    /// Every replica of the cluster's one shard, this server among them.
    var replicas: [ClickHouseCluster.Server]
    /// The cluster's name in `<remote_servers>`.
    var clusterName: String
    /// ZooKeeper's client port on 127.0.0.1.
    var zooKeeperPort: Int?
    /// ZooKeeper's session timeout: how long a killed server's replica stays "active".
    var sessionTimeoutMilliseconds: Int

    /// Where the server writes its log (in its directory, beside its output).
    var logFile: URL { server.directory.appendingPathComponent("server.log") }
    /// Where `config.xml` goes.
    var configFile: URL { server.directory.appendingPathComponent("config.xml") }
    private var usersFile: URL { server.directory.appendingPathComponent("users.xml") }
    private var dataDirectory: URL { server.directory.appendingPathComponent("data", isDirectory: true) }

    /// Tells the server to start although its parts differ from what ZooKeeper lists: after a
    /// SIGKILL, parts written but never committed to ZooKeeper (so never acknowledged) make
    /// ClickHouse refuse to attach the table ("The local set of parts … doesn't look like the set
    /// of parts in ZooKeeper") and exit. With the flag it sets them aside in `detached/` and
    /// fetches what it lacks from the other replicas; the flag is removed as it starts.
    func allowRestoringParts() throws {
        let flags = dataDirectory.appendingPathComponent("flags", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: flags, withIntermediateDirectories: true)
            try Data().write(to: flags.appendingPathComponent("force_restore_data"))
        } catch {
            throw ClickHouseClusterError(.launchFailed, "could not flag \(server.name)'s parts for restoring: \(error)")
        }
    }

    /// Makes the server's directory and writes both files into it.
    func write() throws {
        do {
            try FileManager.default.createDirectory(at: server.directory, withIntermediateDirectories: true)
            try configXML.write(to: configFile, atomically: true, encoding: .utf8)
            try usersXML.write(to: usersFile, atomically: true, encoding: .utf8)
        } catch {
            throw ClickHouseClusterError(.launchFailed, "could not write \(server.name)'s configuration: \(error)")
        }
    }

    private var configXML: String {
        let data = Self.escaped(dataDirectory.path)
        let replicaList = replicas.map {
            "<replica><host>127.0.0.1</host><port>\($0.tcpPort)</port></replica>"
        }.joined(separator: "\n                ")
        var zooKeeper = ""
        if let zooKeeperPort {
            zooKeeper = """
                <zookeeper>
                    <node><host>127.0.0.1</host><port>\(zooKeeperPort)</port></node>
                    <session_timeout_ms>\(sessionTimeoutMilliseconds)</session_timeout_ms>
                </zookeeper>
                <distributed_ddl><path>/clickhouse/task_queue/ddl</path></distributed_ddl>
            """
        }
        return """
            <?xml version="1.0"?>
            <yandex>
                <logger>
                    <level>information</level>
                    <log>\(Self.escaped(logFile.path))</log>
                    <errorlog>\(Self.escaped(server.directory.appendingPathComponent("server.err.log").path))</errorlog>
                    <size>10M</size>
                    <count>1</count>
                </logger>
                <display_name>\(Self.escaped(server.name))</display_name>
                <listen_host>127.0.0.1</listen_host>
                <http_port>\(server.httpPort)</http_port>
                <tcp_port>\(server.tcpPort)</tcp_port>
                <interserver_http_port>\(server.interserverHTTPPort)</interserver_http_port>
                <interserver_http_host>127.0.0.1</interserver_http_host>
                <max_connections>256</max_connections>
                <keep_alive_timeout>3</keep_alive_timeout>
                <max_concurrent_queries>64</max_concurrent_queries>
                <!-- Memory: caches allocate on demand, but a test server never needs big ones.
                     (18.16 has no max_server_memory_usage; the profile caps queries instead.) -->
                <uncompressed_cache_size>0</uncompressed_cache_size>
                <mark_cache_size>16777216</mark_cache_size>
                <path>\(data)/</path>
                <tmp_path>\(data)/tmp/</tmp_path>
                <user_files_path>\(data)/user_files/</user_files_path>
                <format_schema_path>\(data)/format_schemas/</format_schema_path>
                <users_config>\(Self.escaped(usersFile.path))</users_config>
                <default_profile>default</default_profile>
                <default_database>default</default_database>
                <timezone>UTC</timezone>
                <mlock_executable>false</mlock_executable>
                <max_table_size_to_drop>0</max_table_size_to_drop>
                <max_partition_size_to_drop>0</max_partition_size_to_drop>
                <remote_servers>
                    <\(clusterName)>
                        <shard>
                            <internal_replication>true</internal_replication>
                            \(replicaList)
                        </shard>
                    </\(clusterName)>
                </remote_servers>
            \(zooKeeper)
                <macros>
                    <shard>01</shard>
                    <replica>\(Self.escaped(server.name))</replica>
                </macros>
            </yandex>

            """
    }

    private var usersXML: String {
        """
        <?xml version="1.0"?>
        <yandex>
            <profiles>
                <default>
                    <max_memory_usage>2000000000</max_memory_usage>
                    <max_memory_usage_for_all_queries>4000000000</max_memory_usage_for_all_queries>
                    <!-- An ON CLUSTER statement waits for every replica; with one killed, give up
                         after 30 s (default 180) and let it run there when it is back. -->
                    <distributed_ddl_task_timeout>30</distributed_ddl_task_timeout>
                </default>
            </profiles>
            <users>
                <default>
                    <password></password>
                    <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
                    <profile>default</profile>
                    <quota>default</quota>
                </default>
            </users>
            <quotas>
                <default>
                    <interval>
                        <duration>3600</duration>
                        <queries>0</queries>
                        <errors>0</errors>
                        <result_rows>0</result_rows>
                        <read_rows>0</read_rows>
                        <execution_time>0</execution_time>
                    </interval>
                </default>
            </quotas>
        </yandex>

        """
    }

    /// `text` with XML's special characters escaped (paths come from the caller's directory).
    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
