/// The tables a shipper writes in ClickHouse, as ClickHouse 18.16 and later accept them: no
/// `DateTime64` (a `DateTime` and its microseconds), no `Map` (parallel key and value arrays).
///
/// Every table is a `ReplacingMergeTree` ordered by where a row comes from and its id, with the
/// version it was read at: a request sent twice (a retry after a lost acknowledgement, a
/// shipper killed before its cursor moved) leaves one row per key once merged, and `FINAL`
/// reads it so before. Replicated tables also drop an identical block inserted again.
enum ClickHouseSchema {
    /// One table: its name and its columns, in the order rows are encoded.
    struct Table {
        let name: String
        let columns: [(name: String, type: String)]
        let orderBy: String
        let partitionBy: String?

        var columnList: String { columns.map(\.name).joined(separator: ", ") }
    }

    static let levels = "Enum8('trace' = 0, 'debug' = 1, 'info' = 2, 'notice' = 3, 'warning' = 4, 'error' = 5, 'critical' = 6)"

    /// Messages: one row per logged message.
    static let messages = Table(
        name: "logstore_messages",
        columns: [
            ("node", "String"), ("store", "String"), ("id", "Int64"), ("session", "String"),
            ("time", "DateTime"), ("time_us", "UInt32"), ("level", levels), ("label", "String"), ("text", "String"),
            ("metadata_keys", "Array(String)"), ("metadata_values", "Array(String)"),
            ("file", "String"), ("function", "String"), ("line", "UInt32"),
            ("thread_id", "Int32"), ("thread_name", "String"), ("version", "UInt64"),
        ],
        orderBy: "(node, store, id)", partitionBy: "toYYYYMM(time)")

    /// Network tasks: one row per task, its latest state winning (`version`).
    static let tasks = Table(
        name: "logstore_tasks",
        columns: [
            ("node", "String"), ("store", "String"), ("id", "Int64"), ("task_id", "String"), ("session", "String"),
            ("time", "DateTime"), ("time_us", "UInt32"), ("label", "String"),
            ("type", "Enum8('data' = 0, 'download' = 1, 'upload' = 2, 'stream' = 3, 'webSocket' = 4)"),
            ("state", "Enum8('pending' = 0, 'success' = 1, 'failure' = 2)"),
            ("direction", "Enum8('outbound' = 0, 'inbound' = 1)"),
            ("method", "String"), ("url", "String"), ("host", "String"), ("status_code", "Int32"),
            ("error_code", "Int64"), ("error_domain", "String"), ("error", "String"), ("content_type", "String"),
            ("duration_ms", "Float64"), ("request_bytes", "Int64"), ("response_bytes", "Int64"),
            ("trace_id", "String"), ("version", "UInt64"),
        ],
        orderBy: "(node, store, id)", partitionBy: "toYYYYMM(time)")

    /// Gaps: rows the store's size limit deleted before they were shipped, counted per entity
    /// each time the shipper learned of them.
    static let gaps = Table(
        name: "logstore_gaps",
        columns: [
            ("node", "String"), ("store", "String"), ("entity", "String"), ("cursor", "Int64"),
            ("rows", "UInt64"), ("time", "DateTime"), ("version", "UInt64"),
        ],
        orderBy: "(node, store, entity, cursor)", partitionBy: nil)

    static let all = [messages, tasks, gaps]

    /// The statements that create `table` when missing: on one server, the table itself; in a
    /// cluster, this server's replicated table (`<name>_local`) and the `Distributed` table
    /// over the cluster's that queries see as `<name>`.
    static func createStatements(_ table: Table, database: String, cluster: String?) -> [String] {
        let columns = table.columns.map { "\(quoted($0.name)) \($0.type)" }.joined(separator: ", ")
        let partition = table.partitionBy.map { " PARTITION BY \($0)" } ?? ""
        let tail = "\(partition) ORDER BY \(table.orderBy)"
        guard let cluster else {
            return ["CREATE TABLE IF NOT EXISTS \(quoted(database)).\(table.name) (\(columns)) ENGINE = ReplacingMergeTree(version)\(tail)"]
        }
        let local = "\(table.name)_local"
        let path = "/clickhouse/tables/{shard}/\(database).\(local)"
        return [
            "CREATE TABLE IF NOT EXISTS \(quoted(database)).\(local) (\(columns)) ENGINE = "
                + "ReplicatedReplacingMergeTree('\(path)', '{replica}', version)\(tail)",
            "CREATE TABLE IF NOT EXISTS \(quoted(database)).\(table.name) AS \(quoted(database)).\(local) "
                + "ENGINE = Distributed(\(quoted(cluster)), \(quoted(database)), \(local), rand())",
        ]
    }

    /// The `ATTACH` twin of a `CREATE TABLE IF NOT EXISTS` statement: the same table, made
    /// from its definition without registering anything in ZooKeeper.
    static func attachStatement(forCreate statement: String) -> String {
        "ATTACH" + statement.dropFirst("CREATE".count)
    }

    /// The table a shipper inserts into: the replicated one of the server it talks to.
    static func insertTable(_ table: Table, database: String, cluster: String?) -> String {
        "\(quoted(database)).\(cluster == nil ? table.name : table.name + "_local")"
    }

    /// An identifier in back quotes (ClickHouse's quoting), with back quotes and backslashes escaped.
    static func quoted(_ name: String) -> String {
        "`" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "`", with: "\\`") + "`"
    }
}
