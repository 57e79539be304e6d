#if Hummingbird
import Foundation
import Hummingbird
import HummingbirdTesting
import LogStore
import LogStoreConsole
import Logging
import Testing

/// `LogStoreConsoleRoutes` mounted in a real Hummingbird application on a loopback port, behind
/// the application's own authentication: the same page, API, downloads and live tail as
/// `logstore serve`, under a prefix, and nothing past the application's middleware without it.
@Suite struct HummingbirdConsoleTests {
    /// The application's authentication, as a test stands it in: one header.
    struct AdminOnly<Context: RequestContext>: RouterMiddleware {
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            guard request.headers.contains(where: { $0.name.canonicalName == "x-admin" && $0.value == "yes" }) else {
                throw HTTPError(.unauthorized)
            }
            return try await next(request, context)
        }
    }

    static let admin = [("X-Admin", "yes")]

    static func application(_ console: LogStoreConsoleRoutes) -> some ApplicationProtocol {
        let router = Router()
        router.get("hello") { _, _ in "the app's own route" }
        router.group("ops/console").add(middleware: AdminOnly()).addLogStoreConsole(console)
        var logger = Logger(label: "hummingbird-console-tests")
        logger.logLevel = .critical
        return Application(router: router, logger: logger)
    }

    static func log(_ store: LogStore, count: Int, from index: Int = 0) async throws {
        for number in index..<(index + count) {
            store.storeMessage(label: "billing", level: number % 2 == 0 ? .info : .error, message: "charge \(number)")
        }
        try await store.flush()
    }

    @Test func servesThePageAndAPIUnderItsPrefixBehindTheAppsAuthentication() async throws {
        try await withTemporaryDirectory { directory in
            try Data("hello".utf8).write(to: directory.appendingPathComponent("notes.txt"))
            try await withTemporaryStore { store, _ in
                try await Self.log(store, count: 10)
                let console = try LogStoreConsoleRoutes(store: store, filesDirectory: directory)
                try await withinTimeLimit(seconds: 90) {
                    try await Self.application(console).test(.live) { client in
                        let http = ConsoleClient(port: UInt16(try #require(client.port)))
                        // Nothing without the application's authentication, every route.
                        for target in ["/ops/console/", "/ops/console/api/messages", "/ops/console/console.js", "/ops/console/download"] {
                            #expect(try await http.get(target).status == 401, "\(target)")
                        }
                        #expect(try await http.get("/hello").text == "the app's own route")

                        let redirect = try await http.get("/ops/console?x=1", headers: Self.admin)
                        #expect(redirect.status == 308)
                        #expect(redirect.header("location") == "/ops/console/?x=1")

                        let page = try await http.get("/ops/console/", headers: Self.admin)
                        #expect(page.status == 200)
                        #expect(page.text.contains("<script src=\"console.js\""))
                        #expect(page.header("content-security-policy")?.contains("script-src 'self'") == true)
                        #expect(page.header("x-content-type-options") == "nosniff")
                        #expect(try await http.get("/ops/console/console.js", headers: Self.admin).header("content-type")?.hasPrefix("text/javascript") == true)

                        let errors = try await http.get("/ops/console/api/messages?level=error&q=charge", headers: Self.admin)
                        let json = try #require(try errors.json() as? [String: Any])
                        let texts = (json["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String }
                        #expect(texts?.count == 5)
                        #expect(texts?.allSatisfy { $0.hasPrefix("charge ") } == true)

                        let head = try await http.get("/ops/console/api/messages", headers: Self.admin, method: "HEAD")
                        #expect(head.status == 200 && head.body.isEmpty)

                        // A streamed body (the download) goes through whole, with its length.
                        let download = try await http.get("/ops/console/download?format=ndjson", headers: Self.admin)
                        #expect(download.status == 200)
                        #expect(download.header("content-length") == String(download.body.count))
                        #expect(download.text.split(separator: "\n").count == 10)

                        let file = try await http.get("/ops/console/files/notes.txt", headers: Self.admin)
                        #expect(file.text == "hello")
                        for hostile in ["/ops/console/files/..%2f..%2fetc%2fpasswd", "/ops/console/files/%2e%2e/%2e%2e/etc/passwd"] {
                            let refused = try await http.get(hostile, headers: Self.admin)
                            #expect((400..<500).contains(refused.status), "\(hostile): \(refused.status)")
                            #expect(!refused.text.contains("root:"))
                        }
                        #expect(try await http.get("/ops/console/api/nothing", headers: Self.admin).status == 404)
                    }
                }
            }
        }
    }

    @Test func theLiveTailStreamsWhatIsLoggedAfterItOpens() async throws {
        try await withTemporaryStore { store, _ in
            try await Self.log(store, count: 3)
            let console = try LogStoreConsoleRoutes(store: store)
            try await withinTimeLimit(seconds: 90) {
                try await Self.application(console).test(.live) { client in
                    let http = ConsoleClient(port: UInt16(try #require(client.port)))
                    let logging = Task {
                        // While the stream is open: the three before it, then these.
                        try await Task.sleep(for: .milliseconds(300))
                        try await Self.log(store, count: 3, from: 3)
                    }
                    let events = try await http.events("/ops/console/api/tail?last=3", headers: Self.admin, count: 6)
                    try await logging.value
                    let texts = try events.map { event in
                        let json = try #require(try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])
                        return json["text"] as? String
                    }
                    #expect(texts == (0..<6).map { "charge \($0)" })
                }
            }
        }
    }
}
#endif
