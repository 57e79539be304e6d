import Foundation
import LogStore
import Testing

/// Network tasks through the public API: `storeRequest`, `NetworkLogger`, queries, bodies.
@Suite("Network tasks")
struct NetworkTaskTests {
    static let url = URL(string: "https://api.example.com/v1/orders?page=2")!

    static func jsonBody(_ id: Int) -> Data {
        Data(#"{"id":\#(id),"items":[{"sku":"A-1","quantity":2}],"status":"paid"}"#.utf8)
    }

    @Test func repeatedHeadsAreStoredOnceAndAgainAfterRemoval() async throws {
        try await withTemporaryStore { store, _ in
            let request = NetworkRequest(url: Self.url, method: "GET", headers: ["Accept": "application/json"])
            let response = NetworkResponse(url: Self.url, statusCode: 200, headers: ["Content-Type": "application/json"])
            func heads() async throws -> [Int64?] {
                try await store.read { db in
                    try db.rows("SELECT count(*), coalesce(sum(link_count), 0) FROM task_heads")[0].values.map(\.integer)
                }
            }
            for id in 0..<50 { store.storeRequest(request, response: response, error: nil, data: Self.jsonBody(id)) }
            try await store.flush()
            #expect(try await heads() == [2, 100])

            // The rows the writer remembers are gone: new tasks must not link to them.
            try await store.removeAll()
            #expect(try await heads() == [0, 0])
            for id in 0..<3 { store.storeRequest(request, response: response, error: nil, data: Self.jsonBody(id)) }
            try await store.flush()
            #expect(try await heads() == [2, 6])
            let page = try await store.tasks(TaskQuery())
            for task in page.tasks {
                let details = try #require(try await store.task(id: task.id))
                #expect(details.request?.headers["Accept"] == "application/json")
                #expect(details.response?.statusCode == 200)
            }
            #expect(try await store.read { db in try db.rows("PRAGMA foreign_key_check") }.isEmpty)
        }
    }

    @Test func storeRequestStoresTaskBodiesAndTechnicalMessage() async throws {
        try await withTemporaryStore { store, _ in
            let request = NetworkRequest(url: Self.url, method: "post", headers: ["Content-Type": "application/json"],
                                         body: Self.jsonBody(1))
            let response = NetworkResponse(url: Self.url, statusCode: 201, headers: ["Content-Type": "application/json"])
            store.storeMessage(label: "app", level: .info, message: "before")
            store.storeRequest(request, response: response, error: nil, data: Self.jsonBody(2), label: "orders")
            try await store.flush()

            let page = try await store.tasks(TaskQuery())
            let task = try #require(page.tasks.first)
            #expect(page.tasks.count == 1)
            #expect(task.method == "POST")
            #expect(task.host == "api.example.com")
            #expect(task.statusCode == 201)
            #expect(task.state == .success)
            #expect(task.label == "orders")
            #expect(task.contentType == "application/json")
            #expect(task.responseBodySize == Int64(Self.jsonBody(2).count))

            let details = try #require(try await store.task(id: task.id))
            #expect(details.request?.url == Self.url)
            #expect(details.response?.statusCode == 201)
            let responseKey = try #require(details.responseBodyKey)
            #expect(try await store.blobData(forKey: responseKey) == Self.jsonBody(2))
            let requestKey = try #require(details.requestBodyKey)
            #expect(try await store.blobData(forKey: requestKey) == Self.jsonBody(1))

            // One timeline: the task's technical message sits beside logged messages, but only
            // logged messages are counted (and queries show it only when asked).
            let messages = try await allMessages(store, MessageQuery(includesTaskMessages: true))
            #expect(messages.map(\.label) == ["app", "orders"])
            #expect(messages.last?.level == .debug)
            #expect(messages.last?.text.hasPrefix("POST https://api.example.com/v1/orders") == true, "\(messages.last?.text ?? "")")
            let info = try await store.info()
            #expect(info.messageCount == 1)
            #expect(info.taskCount == 1)
            #expect(info.blobCount == 2)
        }
    }

    /// No caller's code or thread makes a task's technical message: its source location is
    /// NULL in the database and `nil` in the API, not `""` and `0`.
    @Test func aTechnicalMessageHasNoSourceLocation() async throws {
        try await withTemporaryStore { store, _ in
            store.storeMessage(label: "app", level: .info, message: "logged by code")
            store.storeRequest(NetworkRequest(url: Self.url), response: NetworkResponse(statusCode: 200), error: nil, data: nil)
            try await store.flush()
            let messages = try await allMessages(store, MessageQuery(includesTaskMessages: true))
            let technical = try #require(messages.first { $0.label != "app" })
            #expect(technical.file == nil && technical.function == nil && technical.line == nil)
            #expect(technical.threadID == nil)
            let logged = try #require(messages.first { $0.label == "app" })
            #expect(logged.file == "NetworkTaskTests.swift" && logged.line != nil && logged.threadID != nil)
            let nulls = try await store.read { db in
                try db.scalar("""
                    SELECT count(*) FROM messages WHERE task_id IS NOT NULL
                        AND file IS NULL AND function IS NULL AND line IS NULL AND thread_id IS NULL
                    """)
            }
            #expect(nulls == .integer(1))
        }
    }

    @Test func failuresRaiseTheTechnicalMessageToError() async throws {
        try await withTemporaryStore { store, _ in
            store.storeRequest(NetworkRequest(url: Self.url), response: NetworkResponse(url: Self.url, statusCode: 503),
                               error: nil, data: nil)
            store.storeRequest(NetworkRequest(url: Self.url), response: nil,
                               error: URLError(.timedOut), data: nil)
            store.storeRequest(NetworkRequest(url: Self.url), response: NetworkResponse(url: Self.url, statusCode: 304),
                               error: nil, data: nil)
            try await store.flush()
            let tasks = try await store.tasks(TaskQuery(order: .oldestFirst)).tasks
            #expect(tasks.map(\.state) == [.failure, .failure, .success])
            #expect(tasks[1].error?.code == URLError.Code.timedOut.rawValue)
            let levels = try await allMessages(store, MessageQuery(includesTaskMessages: true)).map(\.level)
            #expect(levels == [.error, .error, .debug])
            #expect(try await store.tasks(TaskQuery(states: [.failure])).tasks.count == 2)
            #expect(try await store.tasks(TaskQuery(statusCodes: 500...599)).tasks.count == 1)
        }
    }

    @Test func identicalBodiesAreStoredOnce() async throws {
        try await withTemporaryStore { store, _ in
            let body = Data(repeating: UInt8(ascii: "x"), count: 40_000)
            for _ in 0..<20 {
                store.storeRequest(NetworkRequest(url: Self.url), response: NetworkResponse(url: Self.url, statusCode: 200),
                                   error: nil, data: body)
            }
            try await store.flush()
            let info = try await store.info()
            #expect(info.taskCount == 20)
            #expect(info.blobCount == 1)
            #expect(info.blobsDecompressedSize == Int64(body.count))
            #expect(info.blobsSize < Int64(body.count))  // compressed
        }
    }

    @Test func bodiesOverTheLimitAreNotStoredButTheirSizeIs() async throws {
        var configuration = LogStore.Configuration()
        configuration.bodySizeLimit = 1_000
        try await withTemporaryStore(configuration: configuration) { store, _ in
            store.storeRequest(NetworkRequest(url: Self.url), response: NetworkResponse(url: Self.url, statusCode: 200),
                               error: nil, data: Data(count: 5_000))
            try await store.flush()
            let task = try #require(try await store.tasks(TaskQuery()).tasks.first)
            #expect(task.responseBodySize == 5_000)
            let details = try #require(try await store.task(id: task.id))
            #expect(details.responseBodyKey == nil)
            #expect(details.isResponseBodyOverLimit)
            #expect(try await store.info().blobCount == 0)
        }
    }

    @Test func loggerLifecycleInOrder() async throws {
        try await withTemporaryStore { store, _ in
            let logger = NetworkLogger(store: store, label: "client")
            let id = UUID()
            logger.logTaskCreated(taskID: id, type: .download, request: NetworkRequest(url: Self.url))
            logger.logProgress(taskID: id, completed: 10, total: 100)
            try await store.flush()
            let pending = try #require(try await store.tasks(TaskQuery()).tasks.first)
            #expect(pending.state == .pending)
            #expect(pending.progress == NetworkProgress(completed: 10, total: 100))
            #expect(pending.taskType == .download)

            logger.logDataReceived(taskID: id, data: Data("hello ".utf8))
            logger.logDataReceived(taskID: id, data: Data("world".utf8))
            logger.logDecodingError(taskID: id, error: CocoaError(.coderReadCorrupt))
            logger.logTaskCompleted(taskID: id, response: NetworkResponse(url: Self.url, statusCode: 200), error: nil)
            try await store.flush()
            let tasks = try await store.tasks(TaskQuery()).tasks
            #expect(tasks.count == 1)
            let details = try #require(try await store.task(id: id))
            #expect(details.summary.state == .success)
            #expect(details.decodingError != nil)
            #expect(try await store.blobData(forKey: try #require(details.responseBodyKey)) == Data("hello world".utf8))
            #expect(try await allMessages(store, MessageQuery(includesTaskMessages: true)).map(\.label) == ["client"])
        }
    }

    @Test func loggerOutOfOrderCallsAreSafe() async throws {
        try await withTemporaryStore { store, _ in
            let logger = NetworkLogger(store: store)
            // Completion without creation.
            let orphan = UUID()
            logger.logTaskCompleted(taskID: orphan, response: NetworkResponse(url: Self.url, statusCode: 200),
                                    error: nil, responseBody: Data("ok".utf8), request: NetworkRequest(url: Self.url))
            // Progress and data for a task never created.
            logger.logProgress(taskID: UUID(), completed: 1, total: 2)
            logger.logDataReceived(taskID: UUID(), data: Data("ignored".utf8))
            // The same task created twice, completed, then progress after completion.
            let twice = UUID()
            logger.logTaskCreated(taskID: twice, request: NetworkRequest(url: Self.url, method: "PUT"))
            logger.logTaskCreated(taskID: twice, request: NetworkRequest(url: Self.url, method: "DELETE"))
            logger.logTaskCompleted(taskID: twice, response: NetworkResponse(url: Self.url, statusCode: 204), error: nil)
            logger.logProgress(taskID: twice, completed: 5, total: 5)
            logger.logTaskCompleted(taskID: twice, response: NetworkResponse(url: Self.url, statusCode: 500), error: nil)
            // A repeated completion carrying a body: ignored, and its body not kept.
            store.storeMessage(label: "app", level: .info, message: "marker")
            try await store.flush()
            let blobsBefore = try await store.info().blobCount
            logger.logTaskCreated(taskID: UUID(), request: NetworkRequest(url: Self.url))
            store.storeRequest(NetworkRequest(url: Self.url), response: nil, error: nil, data: Data("first".utf8))
            try await store.flush()
            let duplicate = try #require(try await store.tasks(TaskQuery()).tasks.first).id
            let logger2 = NetworkLogger(store: store)
            logger2.logTaskCompleted(taskID: duplicate, response: NetworkResponse(url: Self.url, statusCode: 201),
                                     error: nil, responseBody: Data("second, never kept".utf8),
                                     request: NetworkRequest(url: Self.url))
            try await store.flush()
            #expect(try await store.info().blobCount == blobsBefore + 1)
            #expect(try await store.task(id: duplicate)?.summary.statusCode == nil)

            let tasks = Array(try await store.tasks(TaskQuery(order: .oldestFirst)).tasks.prefix(2))
            #expect(tasks.map(\.id) == [orphan, twice])
            #expect(tasks.map(\.statusCode) == [200, 204])
            #expect(tasks.last?.method == "PUT")
            #expect(tasks.last?.progress == nil)
        }
    }

    @Test func filtersDecideWhatIsRecorded() async throws {
        try await withTemporaryStore { store, _ in
            let filter = try URLFilter(
                includedHosts: ["*.example.com"], excludedURLs: ["https://api.example.com/health*"])
            let logger = NetworkLogger(store: store, filter: filter)
            for path in ["https://api.example.com/v1/a", "https://api.example.com/health", "https://other.org/x",
                         "https://cdn.example.com/img"] {
                let id = UUID()
                let url = URL(string: path)!
                logger.logTaskCreated(taskID: id, request: NetworkRequest(url: url))
                logger.logTaskCompleted(taskID: id, response: NetworkResponse(url: url, statusCode: 200), error: nil)
            }
            try await store.flush()
            let hosts = try await store.tasks(TaskQuery(order: .oldestFirst)).tasks.compactMap(\.url)
            #expect(hosts == ["https://api.example.com/v1/a", "https://cdn.example.com/img"])
        }
    }

    @Test func eventsCarryNetworkTasks() async throws {
        try await withTemporaryStore { store, _ in
            let events = store.subscribeEvents()
            let logger = NetworkLogger(store: store)
            let id = UUID()
            logger.logTaskCreated(taskID: id, request: NetworkRequest(url: Self.url))
            logger.logProgress(taskID: id, completed: 1, total: 2)
            logger.logTaskCompleted(taskID: id, response: NetworkResponse(url: Self.url, statusCode: 200), error: nil)
            try await store.flush()
            var kinds: [String] = []
            for event in try await collect(events, upTo: 3) {
                switch event {
                case .networkTaskCreated(let created): kinds.append("created \(created.taskID == id)")
                case .networkTaskProgressUpdated: kinds.append("progress")
                case .networkTaskCompleted(let completed): kinds.append("completed \(completed.taskID == id)")
                case .messageStored: kinds.append("message")
                }
            }
            #expect(kinds == ["created true", "progress", "completed true"])
        }
    }

    @Test func removeAllAndRemoveSessionsUnlinkBodies() async throws {
        var configuration = LogStore.Configuration()
        configuration.isBlobCompressionEnabled = false
        try await withTemporaryStoreURL { url in
            let big = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let firstSession = try await withStore(at: url, configuration: configuration) { store in
                store.storeRequest(NetworkRequest(url: Self.url), response: NetworkResponse(url: Self.url, statusCode: 200),
                                   error: nil, data: big)
                try await store.flush()
                return store.session.id
            }
            let blobs = url.appendingPathComponent("blobs")
            #expect(try FileManager.default.contentsOfDirectory(atPath: blobs.path).count == 1)
            try await withStore(at: url, configuration: configuration) { store in
                try await store.removeSessions([firstSession])
                #expect(try await store.info().taskCount == 0)
                #expect(try await store.info().blobCount == 0)
                #expect(try FileManager.default.contentsOfDirectory(atPath: blobs.path).isEmpty)

                store.storeRequest(NetworkRequest(url: Self.url), response: nil, error: nil, data: big)
                try await store.flush()
                #expect(try FileManager.default.contentsOfDirectory(atPath: blobs.path).count == 1)
                try await store.removeAll()
                #expect(try FileManager.default.contentsOfDirectory(atPath: blobs.path).isEmpty)
                #expect(try await store.info().blobCount == 0)
            }
        }
    }

    /// A body file that cannot be written fails the commit with the file-system cause; the
    /// task is kept and stored once the cause goes away.
    @Test func aBodyFileThatCannotBeWrittenIsRetried() async throws {
        var configuration = LogStore.Configuration()
        configuration.isBlobCompressionEnabled = false
        // Only flush() starts a round; the cause goes away right after the first failure, on the
        // writer's thread, before the next round: a test thread slowed by load could be late,
        // and an event that keeps failing on its own is set aside after a while
        // (WriteFailureTests).
        configuration.saveInterval = .seconds(600)
        configuration.isGroupCommitEnabled = false
        let obstacle = Recorder<URL?>(nil)
        configuration.onWriteError = { _ in
            obstacle.update { url in
                if let url { _ = unlink(url.path) }
                url = nil
            }
        }
        try await withTemporaryStore(configuration: configuration) { store, url in
            // A plain file where the blobs/ directory belongs: creating body files fails.
            let blobs = url.appendingPathComponent("blobs")
            try Data("in the way".utf8).write(to: blobs)
            obstacle.update { $0 = blobs }
            store.storeRequest(NetworkRequest(url: Self.url), response: nil, error: nil, data: Data(count: 40_000))
            let error = await #expect(throws: LogStoreError.self) { try await store.flush() }
            guard let error, error.kind == .writeFailed, let cause = error.writeFailedCause else {
                Issue.record("expected writeFailed, got \(String(describing: error))")
                return
            }
            #expect(cause.kind == .fileSystem, "\(cause)")

            try await store.flush()
            #expect(try await store.info().taskCount == 1)
            #expect(try await store.info().blobCount == 1)
        }
    }

    @Test func blobKeysAreValidatedNeverPaths() async throws {
        try await withTemporaryStore { store, _ throws in
            for key in ["../x", "../../etc/passwd", String(repeating: "A", count: 40), String(repeating: "a", count: 39),
                        String(repeating: "a", count: 41), "", String(repeating: "g", count: 40)] {
                await #expect(throws: LogStoreError.self) { try await store.blobData(forKey: key) }
            }
            #expect(try await store.blobData(forKey: String(repeating: "0", count: 40)) == nil)
        }
    }
}
