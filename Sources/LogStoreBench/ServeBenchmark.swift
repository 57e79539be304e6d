import Foundation
import LogStore
import LogStoreConsole

/// `serve.*`: the live console (``LogStoreConsole``) as its clients see it, over loopback sockets.
///
/// - `serve.messages_rps`: a filtered page of the messages API under keep-alive load from `wrk`
///   in another process, beside Datasette serving the same page as SQL from the same
///   `logs.sqlite` (the tool one would otherwise point at a SQLite log).
/// - `serve.download_mb_per_s`: `/download?format=ndjson` of the whole store read to the end,
///   beside ``LogStore/export(to:format:options:)`` to a file: what the download adds.
/// - `serve.tail_latency_ms_p99`: a child process's `storeMessage` to the event on `/api/tail`,
///   beside the in-process `tail()` of the same messages.
///
/// Each figure that needs an outside program (`wrk`, Datasette) is left out with its reason
/// printed when the program cannot be had.
struct ServeBenchmark {
    let rows: Int
    let quick: Bool
    let directory: URL

    /// The page both servers answer: warnings and worse of one label, newest 50. The console's
    /// form of it.
    static let pageTarget = "/api/messages?level=warning&label=http&limit=50"
    /// The same page as SQL on the store's schema (`OnDiskFormat.md`): the columns the API sends,
    /// the label and session by name, logged messages only (the API leaves out network tasks'
    /// own), newest first. Written as a person would, with the subqueries SQLite answers from
    /// the primary keys, so the plan is the index walk the store's own query makes.
    static let pageSQL = """
        SELECT id, created_at, level, (SELECT name FROM labels WHERE labels.id = messages.label_id) AS label, \
        text, metadata, file, function, line, thread_id, \
        (SELECT uuid FROM sessions WHERE sessions.id = messages.session_id) AS session \
        FROM messages \
        WHERE level >= 4 AND label_id = (SELECT id FROM labels WHERE name = 'http') AND task_id IS NULL \
        ORDER BY id DESC LIMIT 50
        """
    /// wrk's connections and threads, the same against both servers: a handful of browsers'
    /// worth of clients, one wrk thread (a second would take the second core from the servers).
    static let connections = 16
    static let wrkThreads = 1

    func run() async throws -> [Figure] {
        let storeURL = directory.appendingPathComponent("serve.logstore")
        _ = try await SearchBenchmark.ingest(rows: rows, at: storeURL, searchIndex: false)
        let store = try await LogStore(storeURL: storeURL, options: [.readonly])
        var figures: [Figure] = []
        do {
            let console = try await LogStoreConsole.start(store: store)
            let endpoint = try ConsoleEndpoint(console)
            do {
                figures += try await messagesRate(endpoint, database: storeURL.appendingPathComponent("logs.sqlite"))
                figures.append(try await download(endpoint, store: store))
            } catch {
                await console.stop()
                throw error
            }
            await console.stop()
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
        try? FileManager.default.removeItem(at: storeURL)
        figures.append(try await tailLatency())
        return figures
    }

    // MARK: serve.messages_rps

    private func messagesRate(_ endpoint: ConsoleEndpoint, database: URL) async throws -> [Figure] {
        let wrk: URL
        let datasette: URL
        switch (WrkLoad.locate(), DatasetteServer.locate()) {
        case (.success(let foundWrk), .success(let foundDatasette)):
            wrk = foundWrk
            datasette = foundDatasette
        case (.failure(let skip), _), (_, .failure(let skip)):
            print("serve: serve.messages_rps skipped: \(skip)")
            return []
        }
        let directory = directory
        let seconds = quick ? 3 : 10
        let warmUp = quick ? 1 : 2
        return try await ThreadRunner.run {
            // Both answers are checked to be the same 50 messages before either is timed.
            let ours = try LoopbackHTTPClient.fetch(port: endpoint.port, target: Self.pageTarget, headers: endpoint.headers)
            let ourIDs = try Self.ids(ours.body, status: ours.head.status, what: "the console's page") { object in
                (object as? [String: Any])?["messages"] as? [Any]
            }
            let server = try DatasetteServer(executable: datasette, database: database, logDirectory: directory)
            defer { server.stop() }
            let target = server.queryTarget(Self.pageSQL)
            let theirs = try LoopbackHTTPClient.fetch(port: server.port, target: target)
            let theirIDs = try Self.ids(theirs.body, status: theirs.head.status, what: "Datasette's answer") { $0 as? [Any] }
            guard ourIDs == theirIDs, ourIDs.count == 50 else {
                throw BenchError.failed("the console's page has ids \(ourIDs.prefix(5))…, Datasette's \(theirIDs.prefix(5))…")
            }
            let version = Self.datasetteVersion(port: server.port)

            let ourURL = "http://127.0.0.1:\(endpoint.port)\(Self.pageTarget)"
            let theirURL = "http://127.0.0.1:\(server.port)\(target)"
            func load(_ url: String, headers: [String], seconds: Int) throws -> WrkLoad.Result {
                try WrkLoad.run(
                    wrk, url: url, headers: headers, threads: Self.wrkThreads, connections: Self.connections, seconds: seconds)
            }
            // A first run each fills the page cache and Python's and SQLite's caches, as a
            // server that has been up a while has them.
            _ = try load(ourURL, headers: endpoint.wrkHeaders, seconds: warmUp)
            _ = try load(theirURL, headers: [], seconds: warmUp)
            let ourLoad = try load(ourURL, headers: endpoint.wrkHeaders, seconds: seconds)
            let theirLoad = try load(theirURL, headers: [], seconds: seconds)
            for (name, result) in [("the console", ourLoad), ("Datasette", theirLoad)] where result.non2xx + result.socketErrors > 0 {
                throw BenchError.failed("\(name) under load: \(result.summary)")
            }
            print("serve: messages page, wrk -t\(Self.wrkThreads) -c\(Self.connections) -d\(seconds)s: ours \(ourLoad.summary); "
                + "Datasette \(version) \(theirLoad.summary)")
            return [Figure(
                name: "serve.messages_rps", value: ourLoad.requestsPerSecond, baseline: theirLoad.requestsPerSecond,
                unit: "req/s",
                baselineDescription: "Datasette \(version) (`datasette serve logs.sqlite`) answering the same 50 messages as SQL "
                    + "(`/logs.json?sql=…&_shape=array`) from the same store; ours: `\(Self.pageTarget)` with the bearer token; "
                    + "\(rows) messages, wrk -t\(Self.wrkThreads) -c\(Self.connections) keep-alive from another process, "
                    + "p99 \(String(format: "%.2f", ourLoad.p99)) ms vs \(String(format: "%.2f", theirLoad.p99)) ms",
                target: "≥ 3× (aim ≥ 20×)")]
        }
    }

    /// The `id`s of the messages in a JSON answer, in order; `rows` finds the array of row
    /// objects in the decoded document.
    private static func ids(_ body: [UInt8], status: Int, what: String, rows: (Any) -> [Any]?) throws -> [Int64] {
        guard status == 200 else {
            throw BenchError.failed("\(what) has status \(status): \(String(decoding: body.prefix(300), as: UTF8.self))")
        }
        let document = try JSONSerialization.jsonObject(with: Data(body))
        guard let objects = rows(document) else { throw BenchError.failed("\(what) holds no rows") }
        return objects.compactMap { ($0 as? [String: Any])?["id"] as? NSNumber }.map(\.int64Value)
    }

    /// Datasette's version as it reports it, for the table.
    private static func datasetteVersion(port: UInt16) -> String {
        guard let answer = try? LoopbackHTTPClient.fetch(port: port, target: "/-/versions.json"),
            let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
            let version = (object["datasette"] as? [String: Any])?["version"] as? String
        else { return "(version unknown)" }
        return version
    }
}

/// Where a started console listens and the token its API wants.
struct ConsoleEndpoint: Sendable {
    let port: UInt16
    let token: String

    init(_ console: LogStoreConsole) throws {
        port = console.port
        guard let token = URLComponents(url: console.url, resolvingAgainstBaseURL: false)?
            .queryItems?.first(where: { $0.name == "token" })?.value
        else { throw BenchError.failed("the console's URL \(console.url) has no token") }
        self.token = token
    }

    /// The API's credentials, as a tool sends them.
    var headers: [(name: String, value: String)] { [("Authorization", "Bearer \(token)")] }

    /// The same for wrk's `-H`.
    var wrkHeaders: [String] { ["Authorization: Bearer \(token)"] }
}
