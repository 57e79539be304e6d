import Foundation
@testable import LogStore
@testable import LogStoreCLI
import Testing

/// A task's direction (schema 7): stored through `NetworkLogger` and `storeRequest`, filtered by
/// `TaskQuery.directions`, read by outside tools in `task_rows`, kept by archives and exports,
/// and shown by the CLI; older stores and archives read as outbound.
@Suite struct TaskDirectionTests {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    /// Three inbound requests (two through the logger, one of them completed without creation,
    /// and one `storeRequest`) and two outbound calls, one a second apart, ending before `now`.
    func withMixedStore<T>(_ body: (LogStore, URL) async throws -> T) async throws -> T {
        try await withTemporaryStore { store, url in
            let logger = NetworkLogger(store: store, label: "server")
            let served = try #require(URL(string: "http://localhost:8080/api/orders/7"))
            let inbound = UUID()
            logger.logTaskCreated(
                taskID: inbound,
                request: NetworkRequest(url: served, method: "POST", headers: ["Authorization": "Bearer s3cret"],
                                        body: Data(#"{"sku":"A1"}"#.utf8)),
                createdAt: Self.now.addingTimeInterval(-5), direction: .inbound)
            logger.logTaskCompleted(
                taskID: inbound, response: NetworkResponse(url: served, statusCode: 201), error: nil,
                responseBody: Data(#"{"id":7}"#.utf8), completedAt: Self.now.addingTimeInterval(-4.9))
            store.storeRequest(
                NetworkRequest(url: URL(string: "https://api.example.com/v1/users")), response: NetworkResponse(statusCode: 200),
                error: nil, data: nil, createdAt: Self.now.addingTimeInterval(-4))
            logger.logTaskCompleted(
                taskID: UUID(), response: NetworkResponse(url: served, statusCode: 500), error: nil,
                request: NetworkRequest(url: URL(string: "http://localhost:8080/api/orders")),
                completedAt: Self.now.addingTimeInterval(-3), direction: .inbound)
            store.storeRequest(
                NetworkRequest(url: URL(string: "http://localhost:8080/health")), response: NetworkResponse(statusCode: 200),
                error: nil, data: nil, label: "server", createdAt: Self.now.addingTimeInterval(-2), direction: .inbound)
            let outbound = UUID()
            logger.logTaskCreated(
                taskID: outbound, request: NetworkRequest(url: URL(string: "https://payments.example.com/charge")),
                createdAt: Self.now.addingTimeInterval(-1))
            logger.logTaskCompleted(taskID: outbound, response: NetworkResponse(statusCode: 502), error: nil)
            try await store.flush()
            return try await body(store, url)
        }
    }

    func paths(_ page: TaskPage) -> [String] {
        page.tasks.map { URL(string: $0.url ?? "")?.path ?? "" }
    }

    @Test func directionIsStoredAndReadBack() async throws {
        try await withMixedStore { store, _ in
            let all = try await store.tasks(TaskQuery(order: .oldestFirst))
            #expect(all.tasks.map(\.direction) == [.inbound, .outbound, .inbound, .inbound, .outbound])
            let first = try #require(all.tasks.first)
            let details = try #require(try await store.task(id: first.id))
            #expect(details.summary.direction == .inbound)
            #expect(details.summary.statusCode == 201)
            // Inbound requests are redacted as outbound ones are.
            #expect(details.request?.headers["Authorization"] == "<private>")
            let pending = UUID()
            NetworkLogger(store: store).logTaskCreated(
                taskID: pending, request: NetworkRequest(url: URL(string: "http://localhost/slow")), direction: .inbound)
            try await store.flush()
            #expect(try await store.task(id: pending)?.summary.direction == .inbound)
            #expect(try await store.task(id: pending)?.summary.state == .pending)
        }
    }

    /// An inbound task the logger forgot (past `maxOpenTasks`) completes with no direction
    /// given: its stored creation's direction stays, it does not turn outbound. A completion of
    /// a task never seen, with no direction, is outbound.
    @Test func aForgottenInboundTaskStaysInbound() async throws {
        try await withTemporaryStore { store, _ in
            let logger = NetworkLogger(store: store, label: "server", maxOpenTasks: 1)
            let served = try #require(URL(string: "http://localhost:8080/api/orders"))
            let inbound = UUID()
            logger.logTaskCreated(taskID: inbound, request: NetworkRequest(url: served), direction: .inbound)
            // A second open task pushes the first out of the logger's table.
            logger.logTaskCreated(taskID: UUID(), request: NetworkRequest(url: served), direction: .inbound)
            #expect(logger.evictedTaskCount == 1)
            let events = store.subscribeEvents()
            logger.logTaskCompleted(taskID: inbound, response: NetworkResponse(url: served, statusCode: 200), error: nil)
            let unseen = UUID()
            logger.logTaskCompleted(
                taskID: unseen, response: NetworkResponse(url: served, statusCode: 200), error: nil,
                request: NetworkRequest(url: served))
            try await store.flush()
            let forgotten = try #require(try await store.task(id: inbound))
            #expect(forgotten.summary.direction == .inbound)
            #expect(forgotten.summary.state == .success)
            #expect(try await store.task(id: unseen)?.summary.direction == .outbound)
            // The completed event says the direction is not known, rather than guessing.
            let directions = try await withinTimeLimit(seconds: 20) {
                var directions: [NetworkTaskDirection?] = []
                for await event in events {
                    guard case .networkTaskCompleted(let completed) = event else { continue }
                    directions.append(completed.direction)
                    if directions.count == 2 { break }
                }
                return directions
            }
            #expect(directions == [nil, nil])
        }
    }

    @Test func directionsFilterWithTheOtherFiltersAndPages() async throws {
        try await withMixedStore { store, _ in
            #expect(try await store.count(TaskQuery(directions: [.inbound])) == 3)
            #expect(try await store.count(TaskQuery(directions: [.outbound])) == 2)
            #expect(try await store.count(TaskQuery(directions: [.inbound, .outbound])) == 5)
            #expect(try await store.count(TaskQuery(directions: [])) == 5)
            #expect(try await store.count(TaskQuery(statusCodes: 500...599, directions: [.inbound])) == 1)
            #expect(try await store.count(TaskQuery(statusCodes: 500...599, directions: [.outbound])) == 1)
            #expect(try await store.count(TaskQuery(hosts: ["localhost"], directions: [.outbound])) == 0)
            #expect(try await store.count(TaskQuery(urlText: .plain("orders"), directions: [.inbound])) == 2)

            var query = TaskQuery(limit: 2, directions: [.inbound])
            let page1 = try await store.tasks(query)
            #expect(paths(page1) == ["/health", "/api/orders"])
            let next = try #require(page1.nextCursor)
            query.cursor = next
            let page2 = try await store.tasks(query)
            #expect(paths(page2) == ["/api/orders/7"])
            #expect(page2.nextCursor == nil)

            // Inbound pages read the partial index, whose condition the filter repeats.
            let plan = try await store.read { db in
                try db.rows("EXPLAIN QUERY PLAN SELECT id FROM tasks t WHERE t.direction = 1 ORDER BY t.id DESC LIMIT 3")
            }
            #expect(plan.contains { $0["detail"]?.text?.contains("tasks_by_direction") == true })
        }
    }

    @Test func viewsNameTheTaskAndLinkItsMessage() async throws {
        try await withMixedStore { store, _ in
            let rows = try await store.read { db in
                try db.rows("""
                    SELECT direction, state, type, method, host, path, status_code, label, time, end_time, session
                    FROM task_rows ORDER BY id LIMIT 1
                    """)
            }
            let row = try #require(rows.first)
            #expect(row["direction"] == .text("inbound"))
            #expect(row["state"] == .text("success"))
            #expect(row["type"] == .text("data"))
            #expect(row["method"] == .text("POST"))
            #expect(row["host"] == .text("localhost"))
            #expect(row["path"] == .text("/api/orders/7"))
            #expect(row["status_code"] == .integer(201))
            #expect(row["label"] == .text("server"))
            #expect(row["time"] == .text("2025-06-15T15:06:35.000Z"))
            #expect(row["end_time"] == .text("2025-06-15T15:06:35.100Z"))
            #expect(row["session"]?.text?.count == 36)

            // message_rows.task_id joins a technical message to its task; plain messages have none.
            store.storeMessage(label: "app", level: .info, message: "plain")
            try await store.flush()
            let joined = try await store.read { db in
                try db.rows("""
                    SELECT m.text, t.direction FROM message_rows m JOIN task_rows t ON t.id = m.task_id
                    WHERE t.direction = 'inbound' ORDER BY m.id
                    """)
            }
            #expect(joined.map { $0["text"]?.text ?? "" } == [
                "POST http://localhost:8080/api/orders/7 201", "GET http://localhost:8080/api/orders 500",
                "GET http://localhost:8080/health 200",
            ])
            let plain = try await store.read { db in try db.scalar("SELECT task_id FROM message_rows WHERE text = 'plain'") }
            #expect(plain == .null)
        }
    }

    @Test func aSchema6StoreMigratesWithEveryTaskOutbound() async throws {
        try await withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent("store-v6.logstore")
            try FileManager.default.copyItem(at: FixtureTests.fixtures.appendingPathComponent("store-v6.logstore"), to: copy)
            // Read-only, the schema stays 6: every task reads as outbound, and none is inbound.
            let readOnly = try await LogStore(storeURL: copy, options: [.readonly])
            #expect(try await readOnly.tasks(TaskQuery(limit: 100)).tasks.allSatisfy { $0.direction == .outbound })
            #expect(try await readOnly.count(TaskQuery(directions: [.inbound])) == 0)
            #expect(try await readOnly.count(TaskQuery(directions: [.outbound])) == 40)
            let task = try await readOnly.task(id: FixtureTests.v6TaskID)
            #expect(task?.summary.direction == .outbound)
            try await readOnly.close()

            let store = try await LogStore(storeURL: copy, options: [])
            #expect(try await store.count(TaskQuery(directions: [.outbound])) == 40)
            let directions = try await store.read { db in
                try db.rows("SELECT direction, count(*) AS n FROM task_rows GROUP BY direction")
            }
            #expect(directions.map(\.values) == [[.text("outbound"), .integer(40)]])
            store.storeRequest(NetworkRequest(url: URL(string: "http://localhost/in")), response: NetworkResponse(statusCode: 204),
                               error: nil, data: nil, direction: .inbound)
            try await store.flush()
            #expect(try await store.count(TaskQuery(directions: [.inbound])) == 1)
            try await store.close()
        }
    }

    @Test func anArchiveOfSchema6OpensMigrated() async throws {
        let archive = try await LogStore(archiveURL: FixtureTests.fixtures.appendingPathComponent("archive-v1.lsarchive"))
        #expect(archive.archiveInfo?.schemaVersion == 6)
        #expect(try await archive.info().schemaVersion == LogStore.Version(Migrations.latestVersion, 0, 0))
        #expect(try await archive.count(TaskQuery(directions: [.outbound])) == 40)
        #expect(try await archive.count(TaskQuery(directions: [.inbound])) == 0)
        let linked = try await archive.read { db in
            try db.scalar("SELECT count(*) FROM message_rows m JOIN task_rows t ON t.id = m.task_id")
        }
        #expect(linked == .integer(38))
        try await archive.close()
    }

    @Test func anArchiveKeepsTheDirection() async throws {
        try await withMixedStore { store, url in
            let file = url.deletingLastPathComponent().appendingPathComponent("mixed.lsarchive")
            _ = try await store.export(to: file, options: ExportOptions(tasks: TaskQuery(directions: [.inbound])))
            let archive = try await LogStore(archiveURL: file)
            #expect(archive.archiveInfo?.schemaVersion == Migrations.latestVersion)
            let tasks = try await archive.tasks(TaskQuery(order: .oldestFirst)).tasks
            #expect(tasks.map(\.direction) == [.inbound, .inbound, .inbound])
            #expect(try await archive.count(TaskQuery(directions: [.inbound])) == 3)
            try await archive.close()
        }
    }

    @Test func exportsMarkInboundTasks() async throws {
        try await withMixedStore { store, url in
            let directory = url.deletingLastPathComponent()
            func exported(_ format: ExportFormat, _ name: String) async throws -> String {
                let file = directory.appendingPathComponent(name)
                _ = try await store.export(to: file, format: format)
                return try String(contentsOf: file, encoding: .utf8)
            }
            let ndjson = try await exported(.ndjson, "x.ndjson").split(separator: "\n")
                .filter { $0.contains(#""type":"task""#) }
            #expect(ndjson.filter { $0.contains(#""direction":"inbound""#) }.count == 3)
            #expect(ndjson.filter { $0.contains(#""direction":"outbound""#) }.count == 2)
            let har = try await exported(.har, "x.har")
            #expect(har.components(separatedBy: #""_direction""#).count - 1 == 3)
            let text = try await exported(.text, "x.log").split(separator: "\n")
            #expect(text.filter { $0.contains(" inbound POST 201 http://localhost:8080/api/orders/7") }.count == 1)
            #expect(text.filter { $0.contains(" inbound ") }.count == 3)
        }
    }

    // MARK: The command line

    func logstore(_ arguments: String...) async -> (status: Int32, output: String, error: String) {
        var output = ""
        var error = ""
        let status = await LogStoreCommand.run(
            arguments, output: &output, error: &error, environment: CommandEnvironment(now: Self.now))
        return (status, output, error)
    }

    @Test func tasksFiltersAndShowsTheDirection() async throws {
        try await withMixedStore { store, url in
            try await store.close()
            let inbound = await logstore("tasks", url.path, "--direction", "inbound")
            #expect(inbound.status == 0)
            // A header row, then one row per task.
            let lines = inbound.output.split(separator: "\n").dropFirst()
            #expect(lines.count == 3)
            #expect(lines.allSatisfy { $0.contains(" ← ") && $0.contains("http://localhost:8080/") })
            let outbound = await logstore("tasks", url.path, "--direction", "out")
            let outboundLines = outbound.output.split(separator: "\n").dropFirst()
            #expect(outboundLines.count == 2)
            #expect(outboundLines.allSatisfy { $0.contains(" → ") })

            let json = await logstore("tasks", url.path, "--direction", "INBOUND", "--json")
            let objects = try json.output.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
            #expect(objects.map { $0["direction"] as? String } == ["inbound", "inbound", "inbound"])

            let bad = await logstore("tasks", url.path, "--direction", "sideways")
            #expect(bad.status == 64)
            #expect(bad.error.contains("inbound or outbound"))

            let id = try #require(objects.last?["id"] as? String)
            let shown = await logstore("task", url.path, id)
            #expect(shown.output.contains("inbound (a request this process handled)"))
            let detail = await logstore("task", url.path, id, "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(detail.output.utf8)) as? [String: Any])
            #expect((object["summary"] as? [String: Any])?["direction"] as? String == "inbound")
        }
    }
}
