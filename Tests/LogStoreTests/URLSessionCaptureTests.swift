import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LogStore
import Testing
@testable import LogStoreCLI

/// A real `URLSession` recorded through `NetworkLogger.makeSession` against a real HTTP server on
/// loopback (Python's `http.server`, one per test).
// Serialized: one python server at a time, so the suite takes less of the two cores from the
// timing-bound tests running beside it.
@Suite(
    "URLSession capture", .serialized,
    .enabled(if: LoopbackHTTPServer.python != nil, "python3 is not installed: no loopback HTTP server"))
struct URLSessionCaptureTests {
    /// A store, a server and a recorded session (invalidated at the end, so it lets go of its
    /// delegate), for one test.
    func withCapture(
        delegate: (any URLSessionDelegate)? = nil,
        _ body: @escaping @Sendable (LogStore, URL, LoopbackHTTPServer, URLSession) async throws -> Void
    ) async throws {
        try await withTemporaryStore { store, url in
            try await LoopbackHTTPServer.with(in: url.deletingLastPathComponent()) { server in
                let configuration = URLSessionConfiguration.ephemeral
                configuration.timeoutIntervalForRequest = 45
                let session = NetworkLogger(store: store).makeSession(configuration: configuration, delegate: delegate)
                defer { session.invalidateAndCancel() }
                try await withinTimeLimit(seconds: 60) { try await body(store, url, server, session) }
            }
        }
    }

    /// The one task of the store, with its details.
    func onlyTask(_ store: LogStore) async throws -> NetworkTaskDetails {
        try await store.flush()
        let tasks = try await store.tasks(TaskQuery()).tasks
        #expect(tasks.count == 1)
        let id = try #require(tasks.first).id
        return try #require(try await store.task(id: id))
    }

    @Test func aSuccessIsRecordedWithItsBodyAndRedactedHeaders() async throws {
        try await withCapture { store, _, server, session in
            var request = URLRequest(url: server.url("/ok.json"))
            request.setValue("Bearer s3cret-header", forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            let (data, response) = try await session.recordedData(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(data == Data(LoopbackHTTPServer.okBody.utf8), "the caller gets the body as sent")

            let task = try await onlyTask(store)
            #expect(task.summary.state == .success)
            #expect(task.summary.method == "GET")
            #expect(task.summary.statusCode == 200)
            #expect(task.summary.url == server.url("/ok.json").absoluteString)
            #expect(task.summary.contentType == "application/json")
            #expect((task.summary.duration ?? 0) > 0)
            #expect(task.request?.headers["Authorization"] == Redaction.placeholder)
            #expect(task.request?.headers["Accept"] == "application/json")
            let body = try await store.blobData(forKey: try #require(task.responseBodyKey))
            let text = String(decoding: try #require(body), as: UTF8.self)
            #expect(text == #"{"hello":"world","access_token":"<private>"}"#)
            #expect(task.transactions.count == 1)
            #expect(task.transactions.first?.response?.statusCode == 200)
            #expect(task.transactions.first?.responseStart != nil)
        }
    }

    /// Error statuses are responses, not errors: the caller gets them, the store marks them
    /// failures, and `logstore tasks` lists them with their status.
    @Test func errorStatusesAreRecordedAndListedByTheCLI() async throws {
        try await withCapture { store, url, server, session in
            let (_, missing) = try await session.recordedData(from: server.url("/missing"))
            let (body, failed) = try await session.recordedData(from: server.url("/fail"))
            #expect((missing as? HTTPURLResponse)?.statusCode == 404)
            #expect((failed as? HTTPURLResponse)?.statusCode == 500)
            #expect(body == Data("boom".utf8))
            try await store.flush()
            let tasks = try await store.tasks(TaskQuery(order: .oldestFirst)).tasks
            #expect(tasks.map(\.statusCode) == [404, 500])
            #expect(tasks.map(\.state) == [.failure, .failure])

            var output = ""
            var error = ""
            let status = await LogStoreCommand.run(
                ["tasks", url.path], output: &output, error: &error, environment: CommandEnvironment())
            #expect(status == 0, "\(error)")
            let lines = output.split(separator: "\n")
            #expect(lines.contains { $0.contains("GET") && $0.contains("404") && $0.contains("/missing") }, "\(output)")
            #expect(lines.contains { $0.contains("GET") && $0.contains("500") && $0.contains("/fail") }, "\(output)")
        }
    }

    @Test func aRedirectRecordsTheFinalResponseAndEachHop() async throws {
        try await withCapture { store, _, server, session in
            var request = URLRequest(url: server.url("/redirect"))
            request.setValue("Bearer s3cret-header", forHTTPHeaderField: "Authorization")
            let (_, response) = try await session.recordedData(for: request)
            #expect(response.url == server.url("/ok.json"))
            let task = try await onlyTask(store)
            #expect(task.summary.statusCode == 200)
            #expect(task.request?.url == server.url("/redirect"))
            #expect(task.response?.url == server.url("/ok.json"))
            #expect(task.transactions.map { $0.response?.statusCode } == [302, 200])
            #expect(task.transactions.map { $0.request?.url?.path } == ["/redirect", "/ok.json"])
            #expect(task.transactions.first?.response?.value(forHTTPHeaderField: "location") == "/ok.json")
            // Each hop's request head is redacted like the task's.
            #expect(task.transactions.first?.request?.value(forHTTPHeaderField: "Authorization") == Redaction.placeholder)
        }
    }

    @Test func aLargeBodyIsStoredAsAFileWithProgress() async throws {
        try await withCapture { store, url, server, session in
            let events = store.subscribeEvents()
            let progress = Task {
                var updates: [Int64] = []
                for await event in events {
                    if case .networkTaskProgressUpdated(let update) = event { updates.append(update.completed) }
                    if case .networkTaskCompleted = event { break }
                }
                return updates
            }
            let (data, _) = try await session.recordedData(from: server.url("/large.bin"))
            #expect(data.count == LoopbackHTTPServer.largeBodySize)
            let task = try await onlyTask(store)
            let updates = await progress.value
            #expect(updates.count >= 2 && updates.count <= 20, "\(updates)")
            #expect(updates.last == Int64(LoopbackHTTPServer.largeBodySize))
            #expect(updates == updates.sorted())
            #expect(task.summary.responseBodySize == Int64(LoopbackHTTPServer.largeBodySize))
            #expect(try await store.blobData(forKey: try #require(task.responseBodyKey)) == data)
            // Random bytes do not compress: the body is a file in blobs/, not an inline row.
            let key = try #require(task.responseBodyKey)
            #expect(try directoryListing(url.appendingPathComponent("blobs")).contains(key))
        }
    }

    @Test func aJSONPostBodyIsStoredRedacted() async throws {
        try await withCapture { store, _, server, session in
            var request = URLRequest(url: server.url("/echo"))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            let body = Data(#"{"user":"ada","password":"hunter2"}"#.utf8)
            let (data, response) = try await session.recordedUpload(for: request, from: body)
            #expect((response as? HTTPURLResponse)?.statusCode == 201)
            #expect(String(decoding: data, as: UTF8.self).contains("hunter2"), "the caller's data is not redacted")

            let task = try await onlyTask(store)
            #expect(task.summary.method == "POST")
            #expect(task.summary.taskType == .upload)
            let requestKey = try #require(task.requestBodyKey)
            let stored = try #require(try await store.blobData(forKey: requestKey))
            #expect(String(decoding: stored, as: UTF8.self) == #"{"user":"ada","password":"<private>"}"#)
            #expect(task.summary.requestBodySize == Int64(stored.count))
            let echoed = try await store.blobData(forKey: try #require(task.responseBodyKey))
            #expect(String(decoding: try #require(echoed), as: UTF8.self).contains("<private>"))
            // The upload's progress, then the download's: the last is the response's.
            #expect(task.summary.progress?.completed == Int64(data.count))
        }
    }

    @Test func aRefusedConnectionThrowsAndIsRecorded() async throws {
        try await withCapture { store, _, _, session in
            // Port 1 (tcpmux) has no listener here.
            let url = URL(string: "http://127.0.0.1:1/nothing")!
            let error = await #expect(throws: URLError.self) { try await session.recordedData(from: url) }
            #expect(error?.code == .cannotConnectToHost)
            let task = try await onlyTask(store)
            #expect(task.summary.state == .failure)
            #expect(task.summary.statusCode == nil)
            #expect(task.summary.error?.code == URLError.Code.cannotConnectToHost.rawValue)
            #expect(task.summary.url == url.absoluteString)
        }
    }

    @Test func cancellingTheSwiftTaskCancelsTheRequest() async throws {
        try await withCapture { store, _, server, session in
            // Subscribed before the request starts, so its created event cannot go by unseen.
            let events = store.subscribeEvents()
            let started = ContinuousClock.now
            let request = Task { try await session.recordedData(from: server.url("/slow")) }
            // Until the store has the task, so the cancel reaches a running request (a cancel
            // before the start is the other path, taken when this loses the race).
            for await event in events {
                if case .networkTaskCreated = event { break }
            }
            request.cancel()
            let result = await request.result
            #expect(ContinuousClock.now - started < .seconds(40), "the server answers after 120 s, the request times out after 45")
            let error = #expect(throws: URLError.self) { try result.get() }
            #expect(error?.code == .cancelled)
            let task = try await onlyTask(store)
            #expect(task.summary.state == .failure)
            #expect(task.summary.error?.code == URLError.Code.cancelled.rawValue)
        }
    }

    /// A Swift task cancelled before the request starts: nothing is sent, the caller gets
    /// `URLError(.cancelled)`, and the store has the task once, also after the session ends.
    @Test func aCancelBeforeTheStartIsRecordedOnce() async throws {
        let delegate = AppDelegate()
        try await withCapture(delegate: delegate) { store, _, server, session in
            let request = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await session.recordedData(from: server.url("/ok.json"))
            }
            let error = await #expect(throws: URLError.self) { try await request.value }
            #expect(error?.code == .cancelled)
            session.invalidateAndCancel()
            for await _ in delegate.invalidations { break }  // every callback has come
            let task = try await onlyTask(store)
            #expect(task.summary.error?.code == URLError.Code.cancelled.rawValue)
            #expect(delegate.recorder.current.completions.isEmpty, "an awaited task completes to its caller")
        }
    }

    /// The app's delegate keeps deciding: it refuses the redirect, and sees every byte and the
    /// completion of its own delegate-style tasks, which are recorded too.
    @Test func theAppDelegateStillGetsItsCallbacks() async throws {
        let delegate = AppDelegate()
        try await withCapture(delegate: delegate) { store, _, server, session in
            let (_, response) = try await session.recordedData(from: server.url("/redirect"))
            #expect((response as? HTTPURLResponse)?.statusCode == 302, "the app's delegate refused the redirect")
            #expect(delegate.recorder.current.redirects == 1)
            #expect(delegate.recorder.current.completions.isEmpty, "an awaited task completes to its caller")

            let task = session.dataTask(with: server.url("/ok.json"))
            session.recordingDelegate?.recordCreation(of: task)
            task.resume()
            for await _ in delegate.completions { break }
            #expect(delegate.recorder.current.data == Data(LoopbackHTTPServer.okBody.utf8))
            #expect(delegate.recorder.current.completions == ["ok"])

            try await store.flush()
            let tasks = try await store.tasks(TaskQuery(order: .oldestFirst)).tasks
            #expect(tasks.map(\.statusCode) == [302, 200])
            #expect((tasks.last?.duration ?? 0) > 0)
        }
    }

    /// The app's delegate answers a redirect only after the task was cancelled: the late answer
    /// does not bring the task back as a second, pending one that never completes.
    @Test func aLateRedirectAnswerMakesNoGhostTask() async throws {
        let delegate = LateRedirectDelegate()
        try await withCapture(delegate: delegate) { store, _, server, session in
            let task = session.dataTask(with: server.url("/redirect"))
            task.resume()
            var answers = delegate.redirects.makeAsyncIterator()
            let answer = try #require(await answers.next())
            task.cancel()
            for await _ in delegate.completions { break }
            answer.handler(URLRequest(url: server.url("/ok.json")))
            try await store.flush()
            let tasks = try await store.tasks(TaskQuery()).tasks
            #expect(tasks.count == 1)
            #expect(tasks.first?.error?.code == URLError.Code.cancelled.rawValue)
            #expect(try await store.count(TaskQuery(states: [.pending])) == 0)
        }
    }

    /// A task recorded and never resumed keeps its record until it is cancelled, which
    /// completes it in the store and lets it go; a task made meanwhile has no record of it.
    @Test func aRecordedTaskNeverResumedEndsWhenCancelled() async throws {
        let delegate = AppDelegate()
        try await withCapture(delegate: delegate) { store, _, server, session in
            let recorder = try #require(session.recordingDelegate)
            let idle = session.dataTask(with: server.url("/ok.json"))
            recorder.recordCreation(of: idle)
            let id = try #require(recorder.taskID(of: idle))
            #expect(recorder.taskID(of: session.dataTask(with: server.url("/ok.json"))) == nil)
            idle.cancel()
            for await _ in delegate.completions { break }
            #expect(recorder.taskID(of: idle) == nil)
            try await store.flush()
            let stored = try #require(try await store.task(id: id))
            #expect(stored.summary.error?.code == URLError.Code.cancelled.rawValue)
        }
    }
}

/// An app's delegate that answers redirects later, when the test says so.
final class LateRedirectDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// A redirect's pending answer.
    struct Answer: Sendable {
        let handler: @Sendable (URLRequest?) -> Void
    }

    let redirects: AsyncStream<Answer>
    private let redirected: AsyncStream<Answer>.Continuation
    let completions: AsyncStream<Void>
    private let completed: AsyncStream<Void>.Continuation

    override init() {
        (redirects, redirected) = AsyncStream.makeStream(of: Answer.self)
        (completions, completed) = AsyncStream.makeStream(of: Void.self)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @Sendable @escaping (URLRequest?) -> Void
    ) {
        redirected.yield(Answer(handler: completionHandler))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        completed.yield()
    }
}

/// An app's own delegate: refuses redirects, collects the body and completions.
final class AppDelegate: NSObject, URLSessionDataDelegate, Sendable {
    struct Seen: Sendable {
        var redirects = 0
        var data = Data()
        var completions: [String] = []
    }

    let recorder = Recorder(Seen())
    let completions: AsyncStream<Void>
    private let completed: AsyncStream<Void>.Continuation
    let invalidations: AsyncStream<Void>
    private let invalidated: AsyncStream<Void>.Continuation

    override init() {
        (completions, completed) = AsyncStream.makeStream(of: Void.self)
        (invalidations, invalidated) = AsyncStream.makeStream(of: Void.self)
    }

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        invalidated.yield()
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @Sendable @escaping (URLRequest?) -> Void
    ) {
        recorder.update { $0.redirects += 1 }
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        recorder.update { $0.data.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        recorder.update { $0.completions.append(error.map { "\($0)" } ?? "ok") }
        completed.yield()
    }
}
