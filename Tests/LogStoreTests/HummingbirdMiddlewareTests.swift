#if Hummingbird
import Foundation
import Hummingbird
import HummingbirdTesting
import LogStore
import LogStoreHummingbird
import Logging
import Testing

/// `LogStoreRequestMiddleware` in a real Hummingbird application on a loopback port (the
/// `.live` test client speaks HTTP/1 to it): every request handled is stored as an inbound task
/// with its status, headers and bodies, redacted, and the client gets the same answer as
/// without the middleware.
@Suite struct HummingbirdMiddlewareTests {
    /// Small, so the large response and upload are past it without moving megabytes.
    static let bodyLimit = 1_024

    struct Boom: Error, CustomStringConvertible {
        var description: String { "the kitchen is on fire" }
    }

    static func application(store: LogStore) -> some ApplicationProtocol {
        let router = Router()
        router.add(middleware: LogStoreRequestMiddleware(store: store))
        router.get("orders") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json", .setCookie: "session=abc123"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"orders":[1,2]}"#)))
        }
        router.get("boom") { _, _ -> Response in throw Boom() }
        router.get("teapot") { _, _ -> Response in throw HTTPError(.badRequest, message: "no tea") }
        router.post("login") { request, _ -> Response in
            // The route still reads the body the middleware collected.
            let body = try await request.body.collect(upTo: 1 << 16)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: body))
        }
        router.post("upload") { request, _ -> String in
            String(try await request.body.collect(upTo: 1 << 16).readableBytes)
        }
        router.get("large") { _, _ in
            let chunk = ByteBuffer(string: String(repeating: "a", count: 1_000))
            return Response(status: .ok, body: ResponseBody(contentsOf: [chunk, chunk, chunk]))
        }
        var logger = Logger(label: "hummingbird-middleware-tests")
        logger.logLevel = .critical
        return Application(router: router, logger: logger)
    }

    /// The store's inbound tasks once `count` of them have completed, within a bound: a task
    /// completes after its body is written, which may be just after the client has read it.
    static func completedInbound(_ store: LogStore, count: Int) async throws -> [NetworkTaskSummary] {
        try await withinTimeLimit(seconds: 60) {
            while true {
                try await store.flush()
                let page = try await store.tasks(TaskQuery(order: .oldestFirst, directions: [.inbound]))
                let done = page.tasks.filter { $0.state != .pending }
                if done.count >= count { return page.tasks }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    static func path(_ task: NetworkTaskSummary) -> String {
        task.url.flatMap { URL(string: $0)?.path } ?? ""
    }

    @Test func recordsEachRequestAsAnInboundTask() async throws {
        var configuration = LogStore.Configuration()
        configuration.bodySizeLimit = Self.bodyLimit
        try await withTemporaryStore(configuration: configuration) { store, _ in
            let app = Self.application(store: store)
            // A bound, not a wait: each test passes in a tenth of a second alone; the whole suite
            // on two cores, with a live server, stretches it to tens of seconds.
            try await withinTimeLimit(seconds: 90) {
                try await app.test(.live) { client in
                    try await client.execute(uri: "/orders?page=2", method: .get, headers: [.authorization: "Bearer s3cret"]) {
                        #expect($0.status == .ok)
                        #expect(String(buffer: $0.body) == #"{"orders":[1,2]}"#)
                        #expect($0.headers[.setCookie] == "session=abc123")
                    }
                    try await client.execute(uri: "/missing", method: .get) { #expect($0.status == .notFound) }
                    try await client.execute(uri: "/boom", method: .get) { #expect($0.status == .internalServerError) }
                    try await client.execute(uri: "/teapot", method: .get) { #expect($0.status == .badRequest) }
                    let login = #"{"user":"ada","password":"hunter2"}"#
                    try await client.execute(
                        uri: "/login", method: .post, headers: [.contentType: "application/json"],
                        body: ByteBuffer(string: login)
                    ) { #expect(String(buffer: $0.body) == login) }
                }
            }
            let tasks = try await Self.completedInbound(store, count: 5)
            #expect(tasks.map(Self.path) == ["/orders", "/missing", "/boom", "/teapot", "/login"])
            #expect(tasks.map(\.statusCode) == [200, 404, 500, 400, 200])
            #expect(tasks.map(\.method) == ["GET", "GET", "GET", "GET", "POST"])
            #expect(tasks.allSatisfy { $0.direction == .inbound && ($0.duration ?? -1) >= 0 })
            // The host is the one the client's Host header names (the test client leaves out the port).
            #expect(tasks.first?.url == "http://localhost/orders?page=2")
            #expect(tasks[2].state == .failure)
            #expect(tasks[2].error?.description == "the kitchen is on fire")
            #expect(tasks[2].error?.domain.hasSuffix("Boom") == true)
            #expect(try await store.count(TaskQuery(directions: [.outbound])) == 0)

            let orders = try #require(try await store.task(id: tasks[0].id))
            #expect(orders.request?.value(forHTTPHeaderField: "Authorization") == "<private>")
            #expect(orders.response?.value(forHTTPHeaderField: "Set-Cookie") == "<private>")
            #expect(orders.summary.contentType == "application/json")
            let ordersBody = try await orders.responseBodyKey.asyncMap { try await store.blobData(forKey: $0) }
            #expect(ordersBody.flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } == #"{"orders":[1,2]}"#)

            let loginTask = try #require(try await store.task(id: tasks[4].id))
            let sent = try #require(try await loginTask.requestBodyKey.asyncMap { try await store.blobData(forKey: $0) } ?? nil)
            let text = String(decoding: sent, as: UTF8.self)
            #expect(text.contains("ada") && !text.contains("hunter2"))
            let answered = try #require(try await loginTask.responseBodyKey.asyncMap { try await store.blobData(forKey: $0) } ?? nil)
            #expect(!String(decoding: answered, as: UTF8.self).contains("hunter2"))
        }
    }

    /// Past the store's body size limit neither body is buffered whole: the upload streams to
    /// the route untouched, the response keeps its Content-Length, and only sizes are stored.
    @Test func largeBodiesPassThroughAndOnlyTheirSizeIsKept() async throws {
        var configuration = LogStore.Configuration()
        configuration.bodySizeLimit = Self.bodyLimit
        try await withTemporaryStore(configuration: configuration) { store, _ in
            let app = Self.application(store: store)
            // A bound, not a wait: each test passes in a tenth of a second alone; the whole suite
            // on two cores, with a live server, stretches it to tens of seconds.
            try await withinTimeLimit(seconds: 90) {
                try await app.test(.live) { client in
                    try await client.execute(uri: "/large", method: .get) {
                        #expect($0.body.readableBytes == 3_000)
                        #expect($0.headers[.contentLength] == "3000")
                    }
                    try await client.execute(
                        uri: "/upload", method: .post, body: ByteBuffer(string: String(repeating: "b", count: 4_000))
                    ) { #expect(String(buffer: $0.body) == "4000") }
                }
            }
            let tasks = try await Self.completedInbound(store, count: 2)
            #expect(tasks.map(Self.path) == ["/large", "/upload"])
            let large = try #require(try await store.task(id: tasks[0].id))
            #expect(large.summary.responseBodySize == 3_000)
            #expect(large.isResponseBodyOverLimit)
            #expect(large.responseBodyKey == nil)
            let upload = try #require(try await store.task(id: tasks[1].id))
            #expect(upload.requestBodyKey == nil)
            #expect(upload.request?.value(forHTTPHeaderField: "Content-Length") == "4000")
            #expect(upload.summary.statusCode == 200)
        }
    }
}

extension Optional {
    /// `map` with an async transform.
    fileprivate func asyncMap<U>(_ transform: (Wrapped) async throws -> U) async rethrows -> U? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
#endif
