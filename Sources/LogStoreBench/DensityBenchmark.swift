import Foundation
import LogStore

/// `store.*`: what a store takes on disk, each store closed first.
///
/// - `store.bytes_per_message`: the database file and its WAL (which `close()` empties) of a
///   store of `rows` messages (``BenchRow``, logged by 4 tasks as `ingest.*` logs them; default
///   configuration, so search on, every message indexed), per message, beside the bytes per line
///   of the same messages exported as text (`logstore export S -o x.txt --no-tasks`). Printed
///   beside it: gzip -6 of that text per line, and the database's bytes by table and index
///   (`dbstat`).
/// - `store.task_bytes_per_payload`: the pages of `task_transactions` (its indexes would count
///   too; it has none), the metrics of network tasks as one JSON text per transaction, beside
///   the bytes of that JSON, in a store of ``tasks`` network tasks stored as
///   `network.tasks_per_s` stores them (``NetworkBodies``) with one transaction of metrics each
///   (``metrics(task:request:response:)``). Skipped where `dbstat` is not available
///   (``DatabasePages``).
struct DensityBenchmark {
    let rows: Int
    let quick: Bool
    let directory: URL

    /// Network tasks for `store.task_bytes_per_payload`.
    var tasks: Int { quick ? 20_000 : 100_000 }
    static let gzip = "/usr/bin/gzip"

    func run() async throws -> [Figure] {
        var figures = [try await messages()]
        if let transactions = try await taskTransactions() { figures.append(transactions) }
        return figures
    }

    // MARK: Messages

    private func messages() async throws -> Figure {
        let url = directory.appendingPathComponent("store-messages.logstore")
        let textURL = directory.appendingPathComponent("store-messages.txt")
        defer {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(at: textURL)
        }
        sync()
        let store = try await BenchStore.open(at: url)
        let start = Measure.now()
        _ = try await IngestBenchmark.ingest(rows: rows, into: store)
        let info = try await BenchStore.waitUntilIndexed(store)
        let seconds = Measure.seconds(since: start)
        try await store.close()
        guard info.messageCount == rows, info.droppedEventCount == 0 else {
            throw BenchError.failed("store: stored \(info.messageCount) of \(rows), dropped \(info.droppedEventCount)")
        }

        // Measured before anything opens the database again.
        let database = url.appendingPathComponent("logs.sqlite").path
        let databaseBytes = Measure.fileBytes(database)
        let walBytes = Measure.fileBytes(database + "-wal")
        let directoryBytes = Measure.allocatedBytes(ofStoreAt: url)
        let split = try tables(of: database)

        let reader = try await LogStore(storeURL: url, options: [.readonly])
        let report: ExportReport
        do {
            report = try await reader.export(to: textURL, format: .text, options: ExportOptions(tasks: nil))
        } catch {
            try? await reader.close()
            throw error
        }
        try await reader.close()
        guard report.messageCount == rows else {
            throw BenchError.failed("store: the text export wrote \(report.messageCount) of \(rows) messages")
        }
        let textBytes = Measure.fileBytes(textURL.path)
        let gzipBytes = try Self.gzipBytes(of: textURL)

        let perRow = { (bytes: Int64) in format("%.1f", Double(bytes) / Double(rows)) }
        let gzip = gzipBytes.map { "gzip -6 of it \(perRow($0)) bytes per line (\(mb($0)))" }
            ?? "gzip -6 not measured (\(Self.gzip) is missing)"
        print(
            "store: \(rows) messages (search on) committed and indexed in \(format("%.1f s", seconds)); closed: "
                + "database \(mb(databaseBytes)) + WAL \(mb(walBytes)) = \(perRow(databaseBytes + walBytes)) bytes "
                + "per message (the whole directory \(mb(directoryBytes)) on disk); text export \(mb(textBytes)) = "
                + "\(perRow(textBytes)) bytes per line, \(gzip); \(split)")
        return Figure(
            name: "store.bytes_per_message", value: Double(databaseBytes + walBytes) / Double(rows),
            baseline: Double(textBytes) / Double(rows), unit: "bytes",
            baselineDescription: "bytes per line of the same messages as text (`logstore export S -o x.txt "
                + "--no-tasks`: time, level, label, message, metadata, file:line; \(gzip)); ours: the closed "
                + "store's database file plus its WAL (file sizes; the WAL \(walBytes) bytes) per message, \(rows) "
                + "messages, default configuration (search on, every message indexed)",
            target: "≤ 1.0 (aim ≤ 0.5)")
    }

    /// The database's bytes by table and index (and free pages), largest first, with the share of
    /// each that holds no data (`dbstat`'s `unused`: free space in its pages), or why not.
    private func tables(of database: String) throws -> String {
        let answer: [[String]]
        do {
            answer = try DatabasePages.rows(
                database,
                "SELECT name, sum(pgsize), sum(unused) FROM dbstat GROUP BY name UNION ALL SELECT '(free pages)', "
                    + "freelist_count * page_size, freelist_count * page_size FROM pragma_freelist_count(), "
                    + "pragma_page_size() ORDER BY 2 DESC")
        } catch let unavailable as DatabasePages.Unavailable {
            return "bytes by table not available (\(unavailable.reason))"
        }
        let sizes = try answer.indices.map { row in
            (
                name: answer[row][0], bytes: try DatabasePages.integer(answer, row: row, column: 1),
                unused: try DatabasePages.integer(answer, row: row, column: 2)
            )
        }
        let total = sizes.reduce(0) { $0 + $1.bytes }
        // Under 0.5 % each (sessions, labels, FTS5's config…) together, as the rest.
        let large = sizes.filter { $0.bytes * 200 >= total }
        var parts = large.map {
            "\($0.name) \(mb($0.bytes)) (\(format("%.1f", Double($0.bytes) / Double(rows))) B/message, "
                + "\(format("%.0f", Double($0.unused) * 100 / Double(max(1, $0.bytes)))) % unused)"
        }
        let rest = total - large.reduce(0) { $0 + $1.bytes }
        if rest > 0 { parts.append("the rest \(mb(rest))") }
        return "by table and index (dbstat): " + parts.joined(separator: ", ")
    }

    /// The bytes of `gzip -6 -c file`, counted as they come; nil when there is no gzip.
    private static func gzipBytes(of file: URL) throws -> Int64? {
        guard FileManager.default.isExecutableFile(atPath: gzip) else { return nil }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: gzip)
        child.arguments = ["-6", "-c", file.path]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        var bytes: Int64 = 0
        while let chunk = try output.fileHandleForReading.read(upToCount: 1 << 16), !chunk.isEmpty {
            bytes += Int64(chunk.count)
        }
        child.waitUntilExit()
        guard child.terminationStatus == 0 else { throw BenchError.failed("gzip failed (\(child.terminationStatus))") }
        return bytes
    }

    // MARK: Network tasks' metrics

    private func taskTransactions() async throws -> Figure? {
        let url = directory.appendingPathComponent("store-tasks.logstore")
        defer { try? FileManager.default.removeItem(at: url) }
        let bodies = NetworkBodies()
        let count = tasks
        let store = try await BenchStore.open(at: url)
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<NetworkBenchmark.networkProducers {
                group.addTask {
                    var index = producer
                    while index < count {
                        let task = index
                        bodies.store(task: task, into: store) { request, response in
                            Self.metrics(task: task, request: request, response: response)
                        }
                        index += NetworkBenchmark.networkProducers
                    }
                }
            }
        }
        try await store.flush()
        let info = try await store.info()
        try await store.close()
        guard info.taskCount == count, info.droppedEventCount == 0 else {
            throw BenchError.failed("store: \(info.taskCount) of \(count) tasks, dropped \(info.droppedEventCount)")
        }

        let database = url.appendingPathComponent("logs.sqlite").path
        let databaseBytes = Measure.fileBytes(database) + Measure.fileBytes(database + "-wal")
        let table = "name IN (SELECT name FROM sqlite_schema WHERE tbl_name = 'task_transactions')"
        let pages: [[String]]
        let byType: [[String]]
        do {
            pages = try DatabasePages.rows(database, "SELECT count(*), coalesce(sum(pgsize), 0) FROM dbstat WHERE \(table)")
            byType = try DatabasePages.rows(
                database,
                "SELECT pagetype, count(*), sum(payload), sum(unused) FROM dbstat WHERE \(table) GROUP BY pagetype")
        } catch let unavailable as DatabasePages.Unavailable {
            print("store: store.task_bytes_per_payload skipped (\(unavailable.reason))")
            return nil
        }
        let payload = try DatabasePages.rows(
            database, "SELECT count(*), coalesce(sum(length(CAST(json AS BLOB))), 0) FROM task_transactions")
        let transactions = try DatabasePages.integer(payload, column: 0)
        let payloadBytes = try DatabasePages.integer(payload, column: 1)
        let tableBytes = try DatabasePages.integer(pages, column: 1)
        guard transactions == count, payloadBytes > 0 else {
            throw BenchError.failed("store: \(transactions) transactions of \(count) tasks, \(payloadBytes) bytes of JSON")
        }
        let average = Double(payloadBytes) / Double(transactions)
        let kinds = try byType.indices.map { row in
            "\(byType[row][0]) \(try DatabasePages.integer(byType, row: row, column: 1)) (payload "
                + "\(mb(try DatabasePages.integer(byType, row: row, column: 2))), unused "
                + "\(mb(try DatabasePages.integer(byType, row: row, column: 3))))"
        }
        print(
            "store: \(count) network tasks with one transaction of metrics each (database \(mb(databaseBytes))): "
                + "task_transactions \(mb(tableBytes)) in \(try DatabasePages.integer(pages, column: 0)) pages for "
                + "\(mb(payloadBytes)) of JSON (\(format("%.0f", average)) bytes per transaction); pages: "
                + kinds.joined(separator: ", "))
        return Figure(
            name: "store.task_bytes_per_payload", value: Double(tableBytes) / Double(payloadBytes), baseline: 1,
            unit: "× payload",
            baselineDescription: "the bytes of the JSON texts it holds (`sum(length(CAST(json AS BLOB)))`, "
                + "\(format("%.0f", average)) bytes per transaction); ours: the pages of `task_transactions` and "
                + "its indexes (`dbstat`, read by the sqlite3 shell) in a closed store of \(count) tasks stored as "
                + "`network.tasks_per_s` stores them, each with one transaction of metrics (heads, times, connection)",
            target: "≤ 1.3")
    }

    /// Task `index`'s metrics as `URLSession` reports them: one transaction with the task's request
    /// head (no body) and response head, the phases' times, the connection and the byte counts.
    /// One task in 8 opens its connection (DNS lookup, TCP, TLS 1.3), the others reuse one; the
    /// times and addresses vary with the task.
    static func metrics(task index: Int, request: NetworkRequest, response: NetworkResponse) -> NetworkMetrics {
        let random = BenchRow.splitmix64(UInt64(index) ^ 0x3E7A)
        /// Milliseconds from `low` to `low + range - 1`, from bits `shift` on of `random`, in seconds.
        func milliseconds(_ shift: UInt64, _ low: UInt64, _ range: UInt64) -> Double {
            Double(low + (random >> shift) % range) / 1000
        }
        let start = Date(timeIntervalSince1970: 1_790_000_000 + Double(index) * 0.01)
        var now = start
        func after(_ seconds: Double) -> Date {
            now = now.addingTimeInterval(seconds)
            return now
        }
        let opensConnection = index % 8 == 0
        var head = request
        head.body = nil
        var transaction = NetworkTransactionMetrics(
            fetchType: .networkLoad, request: head, response: response, fetchStart: start,
            networkProtocol: "h2", localAddress: "10.0.\((random >> 8) % 256).\(1 + (random >> 16) % 254)",
            localPort: 49_152 + Int((random >> 24) % 16_384), remoteAddress: "203.0.113.\(1 + (random >> 40) % 254)",
            remotePort: 443, tlsVersion: "TLS 1.3", cipherSuite: "TLS_AES_128_GCM_SHA256",
            isReusedConnection: !opensConnection, requestHeaderBytes: Self.headerBytes(request.headers),
            requestBodyBytes: Int64(request.body?.count ?? 0), responseHeaderBytes: Self.headerBytes(response.headers),
            responseBodyBytes: Int64(response.value(forHTTPHeaderField: "Content-Length") ?? "") ?? 0)
        if opensConnection {
            transaction.domainLookupStart = now
            transaction.domainLookupEnd = after(milliseconds(0, 2, 30))
            transaction.connectStart = now
            transaction.secureConnectionStart = after(milliseconds(8, 5, 20))
            transaction.secureConnectionEnd = after(milliseconds(16, 10, 40))
            transaction.connectEnd = now
        }
        transaction.requestStart = after(0.0002)
        transaction.requestEnd = after(milliseconds(24, 1, 4))
        transaction.responseStart = after(milliseconds(32, 20, 300))
        transaction.responseEnd = after(milliseconds(48, 1, 30))
        return NetworkMetrics(taskInterval: DateInterval(start: start, end: after(0.0001)), transactions: [transaction])
    }

    /// The bytes of HTTP/1.1 header lines (`Name: value\r\n`) for `headers`.
    private static func headerBytes(_ headers: [String: String]) -> Int64 {
        Int64(headers.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 4 })
    }

    private func mb(_ bytes: Int64) -> String {
        format("%.1f MB", Double(bytes) / 1e6)
    }

    private func format(_ format: String, _ value: Double) -> String {
        String(format: format, value)
    }
}
