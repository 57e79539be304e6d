import Foundation
@testable import LogStore
import Testing

/// `TaskQuery`'s filters, the task URL search and `count(_:)` through the public API, on real
/// stores.
@Suite("Task queries")
struct TaskQueryTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// One task of the fixture: what `storeRequest` gets, and its position in storing order.
    struct Row {
        var method = "GET"
        var url: String
        var status: Int?
        var error: URLError.Code?
        var contentType: String?
        var duration: TimeInterval?
        var label = "network"
    }

    /// Tasks 0…7 complete, task 8 pending; one a minute from `start`.
    static let rows: [Row] = [
        Row(url: "https://api.example.com/api/v1/users", status: 200, contentType: "application/json; charset=utf-8",
            duration: 0.1),
        Row(method: "POST", url: "https://api.example.com/api/v1/orders?page=2", status: 201,
            contentType: "application/json", duration: 0.3, label: "orders"),
        Row(url: "https://api.example.com/api/v10/legacy", status: 500, contentType: "text/html", duration: 1.2),
        Row(url: "https://cdn.example.com/img/café.png", status: 200, contentType: "image/png", duration: 0.05),
        Row(url: "https://cdn.example.com/img/logo.jpeg", status: 404, contentType: "IMAGE/JPEG", duration: 2.0),
        Row(url: "https://api.example.com/api/v1/users/42", error: .timedOut, duration: 5.0),
        Row(url: "https://weird.example.com/100%25_done/a*b?x=%E6%9D%B1%E4%BA%AC", status: 200,
            contentType: " Text/Plain ;charset=x"),
        Row(method: "DELETE", url: "https://api.example.com/api/v1/orders/7", status: 304, duration: 0.25, label: "orders"),
    ]
    static let pendingURL = "https://api.example.com/api/v1/stream"
    static let all = Array(0...8)

    /// Stores `rows` and the pending task, then runs `body`.
    func withTasks<T>(_ body: (LogStore) async throws -> T) async throws -> T {
        try await withTemporaryStore { store, _ in
            for (index, row) in Self.rows.enumerated() {
                let url = try #require(URL(string: row.url))
                let createdAt = Self.start.addingTimeInterval(Double(index) * 60)
                store.storeRequest(
                    NetworkRequest(url: url, method: row.method),
                    response: row.status.map { status in
                        NetworkResponse(url: url, statusCode: status, headers: row.contentType.map { ["Content-Type": $0] } ?? [:])
                    },
                    error: row.error.map { URLError($0) }, data: nil,
                    metrics: row.duration.map { NetworkMetrics(taskInterval: DateInterval(start: createdAt, duration: $0)) },
                    label: row.label, createdAt: createdAt)
            }
            NetworkLogger(store: store).logTaskCreated(
                taskID: UUID(), request: NetworkRequest(url: URL(string: Self.pendingURL)),
                createdAt: Self.start.addingTimeInterval(8 * 60))
            try await store.flush()
            return try await body(store)
        }
    }

    /// The positions (in storing order) of the tasks `query` finds, checked three ways: one
    /// page oldest first, pages of two newest first (no gap, no repeat), and `count(_:)`.
    func positions(_ query: TaskQuery, in store: LogStore) async throws -> [Int] {
        let everything = try await store.tasks(TaskQuery(order: .oldestFirst, limit: 100)).tasks.map(\.rowID)
        var oldestFirst = query
        oldestFirst.order = .oldestFirst
        oldestFirst.limit = 100
        let found = try await store.tasks(oldestFirst).tasks.map(\.rowID)

        var paged = query
        paged.order = .newestFirst
        paged.limit = 2
        var newestFirst: [Int64] = []
        for _ in 0..<10 {
            let page = try await store.tasks(paged)
            newestFirst += page.tasks.map(\.rowID)
            guard let next = page.nextCursor else { break }
            paged.cursor = next
        }
        #expect(newestFirst == found.reversed(), "pages of two, newest first")
        #expect(try await store.count(query) == found.count, "count(_:)")
        return found.compactMap { everything.firstIndex(of: $0) }
    }

    static let cases: [(String, TaskQuery, [Int])] = [
        ("no filter", TaskQuery(), all),
        ("path prefix", TaskQuery(paths: ["/api/v1"]), [0, 1, 2, 5, 7, 8]),
        ("path prefix ending in a slash", TaskQuery(paths: ["/api/v1/"]), [0, 1, 5, 7, 8]),
        ("two path prefixes", TaskQuery(paths: ["/img", "/100%"]), [3, 4, 6]),
        ("a decoded non-ASCII path", TaskQuery(paths: ["/img/caf\u{E9}"]), [3]),
        ("% is no wildcard", TaskQuery(paths: ["/%"]), []),
        ("_ is no wildcard", TaskQuery(paths: ["/api/v_"]), []),
        ("* is no wildcard", TaskQuery(paths: ["/100%_done/*"]), []),
        ("* is itself", TaskQuery(paths: ["/100%_done/a*"]), [6]),
        ("? and [ are themselves", TaskQuery(paths: ["/?", "/["]), []),
        ("paths compare with case", TaskQuery(paths: ["/IMG"]), []),
        ("a duration range", TaskQuery(durations: 0.25 ... 1.5), [1, 2, 7]),
        ("at least 2 s", TaskQuery(durations: 2.0 ... .infinity), [4, 5]),
        ("any duration", TaskQuery(durations: -.infinity ... .infinity), [0, 1, 2, 3, 4, 5, 7]),
        ("failed", TaskQuery(isFailure: true), [2, 4, 5]),
        ("did not fail", TaskQuery(isFailure: false), [0, 1, 3, 6, 7, 8]),
        ("a content type with and without parameters", TaskQuery(contentTypes: ["application/json"]), [0, 1]),
        ("content types ignore case and parameters", TaskQuery(contentTypes: ["APPLICATION/JSON", "text/plain; charset=utf-8"]),
         [0, 1, 6]),
        ("a content type family", TaskQuery(contentTypes: ["image/*"]), [3, 4]),
        ("no body removed", TaskQuery(isResponseBodyRemoved: false), all),
        ("a body removed", TaskQuery(isResponseBodyRemoved: true), []),
        ("a URL word", TaskQuery(urlText: .plain("orders")), [1, 7]),
        ("a host as typed", TaskQuery(urlText: .plain("api.example.com")), [0, 1, 2, 5, 7, 8]),
        ("words without accents or case", TaskQuery(urlText: .plain("CAFE png")), [3]),
        ("a query item", TaskQuery(urlText: .plain("page=2")), [1]),
        ("blank text is no filter", TaskQuery(urlText: .plain("  \t")), all),
        ("FTS5 NOT", TaskQuery(urlText: .fts5("users NOT 42")), [0]),
        ("FTS5 prefix", TaskQuery(urlText: .fts5("ord*")), [1, 7]),
        ("FTS5 OR", TaskQuery(urlText: .fts5("legacy OR logo")), [2, 4]),
        ("FTS5 column filter", TaskQuery(urlText: .fts5("path : img")), [3, 4]),
        ("host, path and failure", TaskQuery(hosts: ["API.example.com"], paths: ["/api/v1/"], isFailure: true), [5]),
        ("method, content type and status", TaskQuery(methods: ["get"], statusCodes: 200...299, contentTypes: ["image/*"]),
         [3]),
        ("URL text, duration and state",
         TaskQuery(states: [.success], urlText: .plain("api"), durations: 0 ... 0.5), [0, 1, 7]),
        ("label and URL text", TaskQuery(urlText: .plain("orders"), labels: ["orders"]), [1, 7]),
        ("an unknown label", TaskQuery(urlText: .plain("orders"), labels: ["nope"]), []),
        ("a time window and a path",
         TaskQuery(paths: ["/api/"], since: start.addingTimeInterval(60), until: start.addingTimeInterval(5 * 60)), [1, 2]),
        ("failed, not removed, a duration", TaskQuery(isFailure: true, durations: 1 ... 3, isResponseBodyRemoved: false),
         [2, 4]),
    ]

    @Test func everyFilterAloneAndCombined() async throws {
        try await withTasks { store in
            for (name, query, expected) in Self.cases {
                let found = try await positions(query, in: store)
                #expect(found == expected, "\(name)")
            }
        }
    }

    @Test func aSessionFilterCombinesWithTheOthers() async throws {
        try await withTasks { store in
            let session = try #require(try await store.sessions().first?.id)
            #expect(try await positions(TaskQuery(isFailure: true, sessions: [session]), in: store) == [2, 4, 5])
            #expect(try await positions(TaskQuery(isFailure: true, sessions: [UUID()]), in: store) == [])
        }
    }

    @Test func aBlankContentTypeIsAnInvalidArgument() async throws {
        try await withTasks { store in
            await #expect(throws: LogStoreError.invalidArgument("")) {
                try await store.tasks(TaskQuery(contentTypes: ["application/json", " ; charset=utf-8"]))
            }
            await #expect(throws: LogStoreError.invalidArgument("")) { try await store.count(TaskQuery(contentTypes: [""])) }
        }
    }

    static let hostileInputs = [
        "\"", "*", "(", ")", "NEAR(", "AND OR", "-", "a NOT", "^api", "\"unterminated", "foo:bar", "url:", "NEAR(a b, x)",
        "'; DROP TABLE tasks; --", "café", "😀", "東京", "", "   ", "api\"example", "orders*",
    ]

    @Test func hostileInputsAreNeverADatabaseError() async throws {
        try await withTasks { store in
            for text in Self.hostileInputs {
                // Plain: the words as typed, never an error.
                let plain = try await store.tasks(TaskQuery(urlText: .plain(text), limit: 100)).tasks
                #expect(try await store.count(TaskQuery(urlText: .plain(text))) == plain.count, "\(text)")
                // FTS5 syntax: results, or the caller's invalid argument with FTS5's reason.
                do {
                    let found = try await store.tasks(TaskQuery(urlText: .fts5(text), limit: 100)).tasks
                    #expect(try await store.count(TaskQuery(urlText: .fts5(text))) == found.count, "\(text)")
                } catch let error as LogStoreError {
                    guard error.kind == .invalidArgument, let reason = error.reason else {
                        Issue.record("\(text): \(error)")
                        continue
                    }
                    #expect(reason.contains("not a valid FTS5 query"), "\(text): \(reason)")
                    await #expect(throws: LogStoreError.invalidArgument("")) {
                        try await store.count(TaskQuery(urlText: .fts5(text)))
                    }
                }
            }
            // The store is intact: every task is still there.
            #expect(try await store.count(TaskQuery()) == Self.all.count)
            // A plain search finds what the hostile-looking text really contains.
            #expect(try await positions(TaskQuery(urlText: .plain("\"orders\"")), in: store) == [1, 7])
            #expect(try await positions(TaskQuery(urlText: .plain("(users")), in: store) == [0, 5])
        }
    }

    @Test func anFTS5SyntaxErrorCarriesFTS5sMessage() async throws {
        try await withTasks { store in
            do {
                _ = try await store.tasks(TaskQuery(urlText: .fts5("orders AND")))
                Issue.record("expected an invalid argument")
            } catch let error as LogStoreError where error.kind == .invalidArgument {
                let reason = error.reason ?? ""
                #expect(reason.contains("fts5: syntax error"), "\(reason)")
                #expect(reason.contains("orders AND"))
            }
        }
    }

    /// Deletions keep the index in step: no ghost after a removal or a sweep, and FTS5's own
    /// check agrees with the table.
    @Test func removalsLeaveNoGhostsInTheURLIndex() async throws {
        try await withTemporaryStoreURL { url in
            let first = try await withStore(at: url) { store in
                for index in 0..<20 {
                    store.storeRequest(
                        NetworkRequest(url: URL(string: "https://old.example.com/v1/item/\(index)")),
                        response: NetworkResponse(statusCode: 200), error: nil, data: nil)
                }
                try await store.flush()
                #expect(try await store.count(TaskQuery(urlText: .plain("old"))) == 20)
                return try #require(try await store.sessions().first?.id)
            }
            try await withStore(at: url) { store in
                store.storeRequest(
                    NetworkRequest(url: URL(string: "https://new.example.com/v1/item/1")),
                    response: NetworkResponse(statusCode: 200), error: nil, data: nil)
                try await store.flush()
                try await store.removeSessions([first])
                #expect(try await store.count(TaskQuery(urlText: .plain("old"))) == 0)
                #expect(try await store.count(TaskQuery(urlText: .plain("item"))) == 1)
                try await store.removeAll()
                #expect(try await store.count(TaskQuery(urlText: .plain("item"))) == 0)
                #expect(try await store.tasks(TaskQuery(urlText: .fts5("item OR new"))).tasks.isEmpty)
            }
            try Self.checkSearchIndex(url)
        }
    }

    /// Schema 13: the writer indexes the tasks it inserts, once per transaction (no insert
    /// trigger). Each task is found once, a pending task completed in a later batch keeps one
    /// entry, a filtered export's archive finds its copied tasks, and FTS5's check agrees with
    /// the table.
    @Test func pendingAndCompletedTasksAreEachIndexedOnce() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                let logger = NetworkLogger(store: store)
                let (pending, completed) = (UUID(), UUID())
                logger.logTaskCreated(taskID: pending, request: NetworkRequest(url: URL(string: "https://pending.example.com/a")))
                logger.logTaskCreated(taskID: completed, request: NetworkRequest(url: URL(string: "https://logged.example.com/b")))
                logger.logTaskCompleted(taskID: completed, response: NetworkResponse(statusCode: 200), error: nil)
                for index in 0..<50 {
                    store.storeRequest(
                        NetworkRequest(url: URL(string: "https://stored.example.com/item/\(index)")),
                        response: NetworkResponse(statusCode: 200), error: nil, data: nil)
                }
                try await store.flush()
                // A second transaction: its completions are indexed by their own statement.
                logger.logTaskCompleted(taskID: pending, response: NetworkResponse(statusCode: 201), error: nil)
                store.storeRequest(
                    NetworkRequest(url: URL(string: "https://later.example.com/c")),
                    response: NetworkResponse(statusCode: 200), error: nil, data: nil)
                try await store.flush()
                #expect(try await store.count(TaskQuery(urlText: .plain("pending"))) == 1)
                #expect(try await store.count(TaskQuery(urlText: .plain("logged"))) == 1)
                #expect(try await store.count(TaskQuery(urlText: .plain("stored"))) == 50)
                #expect(try await store.count(TaskQuery(urlText: .plain("example"))) == 53)

                let archiveURL = url.deletingLastPathComponent().appendingPathComponent("stored.lsarchive")
                _ = try await store.export(to: archiveURL, options: ExportOptions(tasks: TaskQuery(hosts: ["stored.example.com"])))
                let archive = try await LogStore(archiveURL: archiveURL)
                #expect(try await archive.count(TaskQuery(urlText: .plain("item"))) == 50)
                #expect(try await archive.count(TaskQuery(urlText: .plain("logged"))) == 0)
                try await archive.close()
            }
            try Self.checkSearchIndex(url)
        }
    }

    /// A task created and completed in one transaction under another URL (its logger forgot the
    /// creation, so the completion brings its own request): the update trigger takes out of
    /// the index the URL the creation put in, which the writer therefore indexed first.
    @Test func aTaskCompletedUnderAnotherURLInItsCreationsTransactionIsFoundByTheNewOne() async throws {
        // Without group commit the writer takes the whole loop as one batch, one transaction.
        var configuration = LogStore.Configuration()
        configuration.isGroupCommitEnabled = false
        try await withTemporaryStoreURL { url in
            try await withStore(at: url, configuration: configuration) { store in
                // One open task at most: each creation makes the logger forget the one before.
                let logger = NetworkLogger(store: store, maxOpenTasks: 1)
                let ids = (0..<20).map { _ in UUID() }
                for (index, id) in ids.enumerated() {
                    logger.logTaskCreated(taskID: id, request: NetworkRequest(url: URL(string: "https://before.example.com/\(index)")))
                }
                logger.logTaskCreated(taskID: UUID(), request: NetworkRequest(url: URL(string: "https://open.example.com/")))
                for (index, id) in ids.enumerated() {
                    logger.logTaskCompleted(
                        taskID: id, response: NetworkResponse(statusCode: 200), error: nil,
                        request: NetworkRequest(url: URL(string: "https://after.example.com/\(index)")))
                }
                try await store.flush()
                #expect(try await store.count(TaskQuery(urlText: .plain("before"))) == 0)
                #expect(try await store.count(TaskQuery(urlText: .plain("after"))) == 20)
                #expect(try await store.count(TaskQuery(urlText: .plain("open"))) == 1)
            }
            try Self.checkSearchIndex(url)
        }
    }

    @Test func aStoreFromVersion11IndexesTheTasksItGainsAfterMigrating() async throws {
        try await withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("store-v11.logstore")
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("store-v11.logstore"), to: url)
            let before = try await withStore(at: url) { store in
                let count = try await store.count(TaskQuery(urlText: .plain("migrated")))
                store.storeRequest(
                    NetworkRequest(url: URL(string: "https://migrated.example.com/new")),
                    response: NetworkResponse(statusCode: 200), error: nil, data: nil)
                try await store.flush()
                #expect(try await store.count(TaskQuery(urlText: .plain("migrated"))) == count + 1)
                return count
            }
            #expect(before == 0)
            try Self.checkSearchIndex(url)
        }
    }

    @Test func theSweepLeavesNoGhostsAndMarksRemovedBodies() async throws {
        var configuration = SweepTests.lossless()
        configuration.sizeLimit = 2_000_000  // blobs may take 1.4 MB: the sweep drops the oldest bodies
        configuration.maxAge = .seconds(3600)
        try await withTemporaryStoreURL { url in
            try await withStore(at: url, configuration: configuration) { store in
                // Ten tasks too old to keep, then 30 with bodies.
                for index in 0..<10 {
                    store.storeRequest(
                        NetworkRequest(url: URL(string: "https://expired.example.com/\(index)")),
                        response: NetworkResponse(statusCode: 200), error: nil, data: nil,
                        createdAt: Date().addingTimeInterval(-86_400))
                }
                for index in 0..<30 {
                    store.storeRequest(
                        NetworkRequest(url: URL(string: "https://cdn.example.com/body/\(index)")),
                        response: NetworkResponse(statusCode: 200), error: nil,
                        data: SweepTests.randomBody(seed: UInt64(index), size: 60_000),
                        createdAt: Date().addingTimeInterval(Double(index - 30)))
                }
                try await store.flush()
                let report = try await store.sweep()
                #expect(report.droppedBodies > 0)
                #expect(try await store.count(TaskQuery(urlText: .plain("expired"))) == 0)
                #expect(try await store.count(TaskQuery(urlText: .plain("body"))) == 30)

                let removed = try await store.tasks(TaskQuery(isResponseBodyRemoved: true, order: .oldestFirst, limit: 100))
                #expect(removed.tasks.count == report.droppedBodies)
                for task in removed.tasks {
                    #expect(try await store.task(id: task.id)?.isResponseBodyRemoved == true)
                }
                let kept = try await store.tasks(TaskQuery(isResponseBodyRemoved: false, order: .oldestFirst, limit: 100))
                #expect(kept.tasks.count == 30 - report.droppedBodies)
                #expect(Set(kept.tasks.map(\.rowID)).isDisjoint(with: removed.tasks.map(\.rowID)))
                // The oldest lost their bodies.
                #expect(removed.tasks.map(\.rowID).max() ?? 0 < kept.tasks.map(\.rowID).min() ?? 0)
                #expect(try await store.count(TaskQuery(urlText: .plain("body"), isResponseBodyRemoved: true))
                    == report.droppedBodies)
            }
            try Self.checkSearchIndex(url)
        }
    }

    /// FTS5's `integrity-check` of `task_search` against `tasks`, on the closed store's file.
    static func checkSearchIndex(_ store: URL) throws {
        let connection = try Connection(
            path: store.appendingPathComponent("logs.sqlite").path, mode: .readWrite(create: false))
        defer { connection.close() }
        try connection.execute("INSERT INTO task_search (task_search, rank) VALUES ('integrity-check', 1)")
    }

    // MARK: Stores from earlier versions

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    private func withCopyOfStoreV3<T>(_ body: (URL) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent("store-v3.logstore")
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("store-v3.logstore"), to: copy)
            return try await body(copy)
        }
    }

    @Test func anOlderStoreGainsItsURLIndexWhenMigrated() async throws {
        try await withCopyOfStoreV3 { url in
            try await withStore(at: url, options: []) { store in
                // `catalog.shop.internal` is one of the fixture's hosts.
                let byHost = try await store.count(TaskQuery(hosts: ["catalog.shop.internal"]))
                #expect(byHost > 0)
                #expect(try await store.count(TaskQuery(urlText: .plain("catalog.shop.internal"))) == byHost)
                store.storeRequest(
                    NetworkRequest(url: URL(string: "https://catalog.shop.internal/after/migration")),
                    response: NetworkResponse(statusCode: 200), error: nil, data: nil)
                try await store.flush()
                #expect(try await store.count(TaskQuery(urlText: .plain("catalog.shop.internal"))) == byHost + 1)
                #expect(try await positions(TaskQuery(urlText: .plain("migration")), in: store).count == 1)
            }
            try Self.checkSearchIndex(url)
        }
    }

    @Test func anOlderStoreOpenedReadOnlyIsSearchedWithoutAnIndex() async throws {
        try await withCopyOfStoreV3 { url in
            try await withStore(at: url, options: [.readonly]) { store in
                let byHost = try await store.count(TaskQuery(hosts: ["catalog.shop.internal"]))
                #expect(byHost > 0)
                #expect(try await store.count(TaskQuery(urlText: .plain("catalog.shop.internal"))) == byHost)
                let page = try await store.tasks(TaskQuery(urlText: .fts5("catalog NOT zzz"), limit: 1000))
                #expect(page.tasks.count == byHost)
                // Twice in a row: the temporary index does not outlive its query.
                #expect(try await store.count(TaskQuery(urlText: .fts5("catalog"))) == byHost)
                await #expect(throws: LogStoreError.invalidArgument("")) {
                    try await store.count(TaskQuery(urlText: .fts5("catalog AND")))
                }
                #expect(try await store.count(TaskQuery(urlText: .fts5("catalog"))) == byHost)
            }
            // Nothing was written to the file.
            let connection = try Connection(path: url.appendingPathComponent("logs.sqlite").path, mode: .readOnly)
            defer { connection.close() }
            #expect(try Migrations.currentVersion(connection) == 3)
        }
    }
}
