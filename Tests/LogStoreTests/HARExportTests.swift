import Foundation
import LogStore
import Testing

/// The `.har` export through the public API, read back with Foundation's JSON parser.
@Suite("HAR export")
struct HARExportTests {
    /// 2024-05-01T12:34:56.7895Z, half a millisecond in so that the store's rounding of the
    /// metrics cannot move a phase; HAR writes it as .790, rounded as every format writes times.
    static let start = Date(timeIntervalSince1970: 1_714_566_896.7895)
    static let jsonHeaders = ["Content-Type": "application/json"]

    /// Exports `store` as HAR beside its directory and returns the parsed `log` object.
    static func exportHAR(
        _ store: LogStore, _ storeURL: URL, options: ExportOptions = ExportOptions(), name: String = "out.har"
    ) async throws -> (log: [String: Any], report: ExportReport, url: URL) {
        let url = storeURL.deletingLastPathComponent().appendingPathComponent(name)
        let report = try await store.export(to: url, format: .har, options: options)
        let data = try Data(contentsOf: url)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let log = try #require(root["log"] as? [String: Any])
        return (log, report, url)
    }

    static func entries(_ log: [String: Any]) throws -> [[String: Any]] {
        try #require(log["entries"] as? [[String: Any]])
    }

    /// A HAR `[{name, value}]` list as pairs, in order.
    static func pairs(_ value: Any?) throws -> [[String]] {
        let list = try #require(value as? [[String: Any]])
        return try list.map { [try #require($0["name"] as? String), try #require($0["value"] as? String)] }
    }

    @Test func everyKindOfTaskMapsToItsHARFields() async throws {
        var configuration = LogStore.Configuration()
        configuration.redaction = .disabled  // cookies are redacted by default; here they are parsed
        try await withTemporaryStore(configuration: configuration) { store, storeURL in
            let api = try #require(URL(string: "https://api.example.com/v1/users/7"))
            let transaction = NetworkTransactionMetrics(
                fetchType: .networkLoad,
                fetchStart: Self.start, domainLookupStart: Self.start.addingTimeInterval(0.001),
                domainLookupEnd: Self.start.addingTimeInterval(0.004), connectStart: Self.start.addingTimeInterval(0.004),
                connectEnd: Self.start.addingTimeInterval(0.020), secureConnectionStart: Self.start.addingTimeInterval(0.010),
                secureConnectionEnd: Self.start.addingTimeInterval(0.020), requestStart: Self.start.addingTimeInterval(0.021),
                requestEnd: Self.start.addingTimeInterval(0.022), responseStart: Self.start.addingTimeInterval(0.050),
                responseEnd: Self.start.addingTimeInterval(0.060), networkProtocol: "h2", localPort: 50_123,
                remoteAddress: "203.0.113.7", remotePort: 443, responseBodyBytes: 20)
            let metrics = NetworkMetrics(
                taskInterval: DateInterval(start: Self.start, duration: 0.060), transactions: [transaction])
            store.storeRequest(
                NetworkRequest(url: api, headers: ["Accept": "application/json"]),
                response: NetworkResponse(url: api, statusCode: 200, headers: Self.jsonHeaders),
                error: nil, data: Data(#"{"id":7,"name":"Ada"}"#.utf8), metrics: metrics, label: "users")
            let missing = try #require(URL(string: "https://api.example.com/v1/users/8"))
            store.storeRequest(
                NetworkRequest(url: missing), response: NetworkResponse(url: missing, statusCode: 404, headers: Self.jsonHeaders),
                error: nil, data: Data(#"{"error":"not found"}"#.utf8), createdAt: Self.start.addingTimeInterval(1))
            let search = try #require(URL(string: "https://api.example.com/v1/search?q=caf%C3%A9&tag=a+b&empty&page=2#top"))
            store.storeRequest(
                NetworkRequest(
                    url: search, method: "POST",
                    headers: ["Content-Type": "application/json; charset=utf-8", "Cookie": "session=abc123; theme=dark"],
                    body: Data(#"{"query":"café"}"#.utf8)),
                response: NetworkResponse(url: search, statusCode: 201, headers: [
                    "Content-Type": "application/json",
                    "Set-Cookie": "id=42; Path=/; HttpOnly, pref=blue; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Secure",
                ]),
                error: nil, data: Data("{}".utf8), createdAt: Self.start.addingTimeInterval(2))
            let image = try #require(URL(string: "https://cdn.example.com/a.png"))
            store.storeRequest(
                NetworkRequest(url: image), response: NetworkResponse(url: image, statusCode: 200, headers: ["Content-Type": "image/png"]),
                error: nil, data: Data([0xFF, 0x00, 0xFE, 0x80]), createdAt: Self.start.addingTimeInterval(3))
            let down = try #require(URL(string: "https://down.example.com/"))
            store.storeRequest(NetworkRequest(url: down), response: nil, error: URLError(.timedOut), data: nil,
                               createdAt: Self.start.addingTimeInterval(4))
            let old = try #require(URL(string: "https://example.com/old"))
            store.storeRequest(
                NetworkRequest(url: old),
                response: NetworkResponse(url: old, statusCode: 301, headers: ["Location": "https://example.com/new"]),
                error: nil, data: nil, createdAt: Self.start.addingTimeInterval(5))
            store.storeMessage(label: "app", level: .info, message: "messages are not part of HAR")
            try await store.flush()

            let (log, report, _) = try await Self.exportHAR(store, storeURL)
            #expect(report.taskCount == 6)
            #expect(report.messageCount == 0)
            #expect(report.sessionCount == 1)
            #expect(log["version"] as? String == "1.2")
            let creator = try #require(log["creator"] as? [String: Any])
            #expect(creator["name"] as? String == "LogStore")
            #expect(creator["version"] as? String == LogStore.Version.library.description)
            let entries = try Self.entries(log)
            try #require(entries.count == 6)

            // One page per session, named by every entry's pageref.
            let pages = try #require(log["pages"] as? [[String: Any]])
            let session = try #require(try await store.sessions().first)
            #expect(pages.count == 1)
            #expect(pages.first?["id"] as? String == session.id.uuidString)
            #expect(entries.allSatisfy { $0["pageref"] as? String == session.id.uuidString })

            // The success, with its metrics.
            let success = entries[0]
            #expect(success["startedDateTime"] as? String == "2024-05-01T12:34:56.790Z")
            #expect(success["_label"] as? String == "users")
            #expect(success["serverIPAddress"] as? String == "203.0.113.7")
            #expect(success["connection"] as? String == "50123")
            let request = try #require(success["request"] as? [String: Any])
            #expect(request["method"] as? String == "GET")
            #expect(request["url"] as? String == api.absoluteString)
            #expect(request["httpVersion"] as? String == "HTTP/2")
            #expect(try Self.pairs(request["headers"]) == [["Accept", "application/json"]])
            #expect(request["postData"] == nil)
            #expect(request["headersSize"] as? Int == -1)
            let response = try #require(success["response"] as? [String: Any])
            #expect(response["status"] as? Int == 200)
            #expect(response["statusText"] as? String == "OK")
            #expect(response["bodySize"] as? Int == 20)
            let content = try #require(response["content"] as? [String: Any])
            #expect(content["text"] as? String == #"{"id":7,"name":"Ada"}"#)
            #expect(content["size"] as? Int == 21)  // decoded; bodySize is the 20 bytes on the wire
            #expect(content["mimeType"] as? String == "application/json")
            #expect(content["encoding"] == nil)
            let timings = try #require(success["timings"] as? [String: Double])
            #expect(timings == ["blocked": 1, "dns": 3, "connect": 16, "ssl": 10, "send": 1, "wait": 28, "receive": 10])
            #expect(try #require(success["time"] as? Double) == 59)
            #expect((success["cache"] as? [String: Any])?.isEmpty == true)

            // The 404 with a JSON body.
            let notFound = try #require(entries[1]["response"] as? [String: Any])
            #expect(notFound["status"] as? Int == 404)
            #expect(notFound["statusText"] as? String == "Not Found")
            #expect((notFound["content"] as? [String: Any])?["text"] as? String == #"{"error":"not found"}"#)
            #expect(entries[1]["startedDateTime"] as? String == "2024-05-01T12:34:57.790Z")

            // The POST: body, query string and cookies both ways.
            let post = try #require(entries[2]["request"] as? [String: Any])
            #expect(post["method"] as? String == "POST")
            #expect(try Self.pairs(post["queryString"]) == [["q", "café"], ["tag", "a+b"], ["empty", ""], ["page", "2"]])
            #expect(try Self.pairs(post["cookies"]) == [["session", "abc123"], ["theme", "dark"]])
            #expect(try Self.pairs(post["headers"]).map(\.[0]) == ["Content-Type", "Cookie"])
            let postData = try #require(post["postData"] as? [String: Any])
            #expect(postData["mimeType"] as? String == "application/json; charset=utf-8")
            #expect(postData["text"] as? String == #"{"query":"café"}"#)
            #expect(post["bodySize"] as? Int == #"{"query":"café"}"#.utf8.count)
            let created = try #require(entries[2]["response"] as? [String: Any])
            let cookies = try #require(created["cookies"] as? [[String: Any]])
            #expect(cookies.count == 2)
            #expect(cookies.first?["name"] as? String == "id" && cookies.first?["path"] as? String == "/")
            #expect(cookies.first?["httpOnly"] as? Bool == true)
            #expect(cookies.last?["name"] as? String == "pref" && cookies.last?["secure"] as? Bool == true)
            #expect(cookies.last?["expires"] as? String == "2037-10-21T07:28:00.000Z")

            // The binary body: Base64.
            let imageContent = try #require((entries[3]["response"] as? [String: Any])?["content"] as? [String: Any])
            #expect(imageContent["encoding"] as? String == "base64")
            #expect(imageContent["text"] as? String == "/wD+gA==")
            #expect(imageContent["size"] as? Int == 4)

            // The failure without a response.
            let failure = entries[4]
            let failed = try #require(failure["response"] as? [String: Any])
            #expect(failed["status"] as? Int == 0)
            #expect(failed["httpVersion"] as? String == "unknown")
            let error = try #require(failed["_error"] as? [String: Any])
            #expect(error["domain"] as? String == NSURLErrorDomain)
            #expect(error["code"] as? Int == URLError.Code.timedOut.rawValue)
            #expect((error["description"] as? String)?.isEmpty == false)
            #expect(failure["_state"] as? String == "failure")

            // The redirect.
            let redirect = try #require(entries[5]["response"] as? [String: Any])
            #expect(redirect["status"] as? Int == 301)
            #expect(redirect["redirectURL"] as? String == "https://example.com/new")

            // Every entry has the fields HAR 1.2 requires, send/wait/receive at least 0.
            for entry in entries {
                let timings = try #require(entry["timings"] as? [String: Double])
                for phase in ["send", "wait", "receive"] { #expect(try #require(timings[phase]) >= 0) }
                #expect(entry["time"] is Double)
                #expect(entry["cache"] != nil)
                let response = try #require(entry["response"] as? [String: Any])
                for field in ["status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize"] {
                    #expect(response[field] != nil, "response.\(field)")
                }
                let request = try #require(entry["request"] as? [String: Any])
                for field in ["method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"] {
                    #expect(request[field] != nil, "request.\(field)")
                }
            }
        }
    }

    /// Without transaction metrics (as on Linux), the task's duration is the wait.
    @Test func aTaskWithoutMetricsWaitsForItsWholeDuration() async throws {
        try await withTemporaryStore { store, storeURL in
            let url = try #require(URL(string: "https://api.example.com/slow"))
            store.storeRequest(
                NetworkRequest(url: url), response: NetworkResponse(url: url, statusCode: 200), error: nil, data: nil,
                metrics: NetworkMetrics(taskInterval: DateInterval(start: Self.start, duration: 0.25)))
            try await store.flush()
            let entry = try #require(try Self.entries(try await Self.exportHAR(store, storeURL).log).first)
            let timings = try #require(entry["timings"] as? [String: Double])
            #expect(timings == ["blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 250, "receive": 0])
            #expect(entry["time"] as? Double == 250)
        }
    }

    @Test func redactedValuesStayRedacted() async throws {
        try await withTemporaryStore { store, storeURL in
            let url = try #require(URL(string: "https://api.example.com/me?access_token=tok-SECRET-1"))
            store.storeRequest(
                NetworkRequest(url: url, headers: ["Authorization": "Bearer SECRET-2", "Cookie": "sid=SECRET-3"],
                               body: Data(#"{"password":"SECRET-4","user":"ada"}"#.utf8)),
                response: NetworkResponse(url: url, statusCode: 200, headers: ["Set-Cookie": "sid=SECRET-5"]),
                error: nil, data: nil)
            try await store.flush()
            let (log, _, fileURL) = try await Self.exportHAR(store, storeURL)
            let text = try String(contentsOf: fileURL, encoding: .utf8)
            #expect(!text.contains("SECRET"))
            let entry = try #require(try Self.entries(log).first)
            let request = try #require(entry["request"] as? [String: Any])
            let headers = Dictionary(uniqueKeysWithValues: try Self.pairs(request["headers"]).map { ($0[0], $0[1]) })
            #expect(headers["Authorization"] == Redaction.placeholder)
            #expect(try Self.pairs(request["queryString"]) == [["access_token", Redaction.placeholder]])
            #expect((request["cookies"] as? [Any])?.isEmpty == true)  // "<private>" is not a cookie
            let postData = try #require(request["postData"] as? [String: Any])
            #expect((postData["text"] as? String)?.contains(#""password":"<private>""#) == true)
        }
    }

    @Test func taskFiltersSelectTheEntries() async throws {
        try await withTemporaryStore { store, storeURL in
            for host in ["a.example.com", "b.example.com", "a.example.com"] {
                let url = try #require(URL(string: "https://\(host)/x"))
                store.storeRequest(NetworkRequest(url: url), response: NetworkResponse(url: url, statusCode: 200), error: nil, data: nil)
            }
            store.storeMessage(label: "app", level: .error, message: "not in HAR")
            try await store.flush()

            let onlyA = try await Self.exportHAR(
                store, storeURL, options: ExportOptions(tasks: TaskQuery(hosts: ["a.example.com"])), name: "a.har")
            let hosts = try Self.entries(onlyA.log).compactMap { ($0["request"] as? [String: Any])?["url"] as? String }
            #expect(hosts == ["https://a.example.com/x", "https://a.example.com/x"])
            #expect(onlyA.report.taskCount == 2)

            let none = try await Self.exportHAR(store, storeURL, options: ExportOptions(tasks: nil), name: "none.har")
            #expect(try Self.entries(none.log).isEmpty)
            #expect((none.log["pages"] as? [Any])?.isEmpty == true)
            #expect(none.report.taskCount == 0 && none.report.messageCount == 0)

            let later = try await Self.exportHAR(
                store, storeURL, options: ExportOptions(since: Date().addingTimeInterval(3600)), name: "later.har")
            #expect(try Self.entries(later.log).isEmpty)
        }
    }

    @Test func hostileStringsStayValidJSON() async throws {
        var configuration = LogStore.Configuration()
        configuration.redaction = .disabled
        try await withTemporaryStore(configuration: configuration) { store, storeURL in
            let hostile = "\"quote\" \\back\\slash\n\r\t\u{0}\u{1}\u{1F}\u{7F} \u{2028}\u{2029} </script><img src=x onerror=alert(1)> 🔥"
            let url = try #require(URL(string: "https://evil.example.com/%22%5C%0A?x=%22%5C%00%E2%80%A8&%3C=%3E"))
            store.storeRequest(
                NetworkRequest(url: url, method: "GET", headers: ["X-Evil\"\\": hostile, "Cookie": "a=\(hostile)"],
                               body: Data(hostile.utf8)),
                response: NetworkResponse(url: url, statusCode: 200, headers: ["Content-Type": "text/plain", "X-Echo": hostile]),
                error: nil, data: Data(hostile.utf8), label: hostile, taskDescription: hostile)
            try await store.flush()

            let (log, _, _) = try await Self.exportHAR(store, storeURL)
            let entry = try #require(try Self.entries(log).first)
            #expect(entry["_label"] as? String == hostile)
            #expect(entry["_taskDescription"] as? String == hostile)
            let request = try #require(entry["request"] as? [String: Any])
            #expect(request["url"] as? String == url.absoluteString)
            #expect(try Self.pairs(request["queryString"]).first == ["x", "\"\\\u{0}\u{2028}"])
            #expect(try Self.pairs(request["headers"]).contains(["X-Evil\"\\", hostile]))
            #expect((request["postData"] as? [String: Any])?["text"] as? String == hostile)
            let response = try #require(entry["response"] as? [String: Any])
            #expect(try Self.pairs(response["headers"]).contains(["X-Echo", hostile]))
            #expect((response["content"] as? [String: Any])?["text"] as? String == hostile)
        }
    }

    /// HAR 1.2's `postData.text` and `params` are mutually exclusive: `text` is always there (HAR
    /// readers expect it), and a form body's decoded fields are in the custom `_params`.
    @Test func postDataHasTextNeverParamsAndAFormsFieldsApart() async throws {
        var configuration = LogStore.Configuration()
        configuration.redaction = .disabled
        try await withTemporaryStore(configuration: configuration) { store, storeURL in
            let url = try #require(URL(string: "https://api.example.com/login"))
            let form = "user=ada&note=a+b%21&empty"
            store.storeRequest(
                NetworkRequest(url: url, method: "POST", headers: ["Content-Type": "application/x-www-form-urlencoded; charset=utf-8"],
                               body: Data(form.utf8)),
                response: NetworkResponse(url: url, statusCode: 204), error: nil, data: nil)
            store.storeRequest(
                NetworkRequest(url: url, method: "POST", headers: ["Content-Type": "application/json"], body: Data(#"{"a":1}"#.utf8)),
                response: NetworkResponse(url: url, statusCode: 204), error: nil, data: nil)
            try await store.flush()
            let (log, _, _) = try await Self.exportHAR(store, storeURL)
            let posts = try Self.entries(log).map { try #require(($0["request"] as? [String: Any])?["postData"] as? [String: Any]) }
            try #require(posts.count == 2)
            #expect(posts.allSatisfy { $0["params"] == nil })
            #expect(posts[0]["text"] as? String == form)
            #expect(try Self.pairs(posts[0]["_params"]) == [["user", "ada"], ["note", "a b!"], ["empty", ""]])
            #expect(posts[1]["text"] as? String == #"{"a":1}"#)
            #expect(posts[1]["_params"] == nil)
        }
    }

    @Test func bodiesThatAreNotStoredOrNotTextAreExplained() async throws {
        var configuration = LogStore.Configuration()
        configuration.bodySizeLimit = 1_000
        try await withTemporaryStore(configuration: configuration) { store, storeURL in
            let url = try #require(URL(string: "https://upload.example.com/file"))
            store.storeRequest(
                NetworkRequest(url: url, method: "PUT", headers: ["Content-Type": "application/octet-stream"],
                               body: Data([0xC3, 0x28, 0x00, 0xFF])),
                response: NetworkResponse(url: url, statusCode: 200, headers: ["Content-Type": "text/plain"]),
                error: nil, data: Data(repeating: UInt8(ascii: "x"), count: 5_000))
            try await store.flush()
            let (log, report, _) = try await Self.exportHAR(store, storeURL)
            let entry = try #require(try Self.entries(log).first)
            #expect(report.blobCount == 1)

            let postData = try #require((entry["request"] as? [String: Any])?["postData"] as? [String: Any])
            #expect(postData["text"] as? String == "")  // HAR 1.2 requires text (or params)
            #expect(postData["params"] == nil)
            #expect((postData["comment"] as? String)?.contains("not UTF-8") == true)
            #expect(postData["_textBase64"] as? String == Data([0xC3, 0x28, 0x00, 0xFF]).base64EncodedString())

            let content = try #require((entry["response"] as? [String: Any])?["content"] as? [String: Any])
            #expect(content["text"] as? String == "")
            #expect(content["size"] as? Int == 5_000)
            #expect((content["comment"] as? String)?.contains("size limit") == true)
        }
    }
}

/// The HAR of the fixed export store, byte for byte (with what changes from run to run replaced).
@Suite struct HARGoldenTests {
    @Test func matchesTheGolden() async throws {
        try await ExportFixture.withStore { store, exports in
            let har = try await ExportFixture.export(store, .har, in: exports)
            let sessions = try await store.sessions().map(\.id)
            let normalised = Self.normalised(har, sessions: sessions)
            if let path = ProcessInfo.processInfo.environment["PRINT_HAR_GOLDEN"] {
                try normalised.write(toFile: path, atomically: true, encoding: .utf8)
            }
            #expect(normalised == Self.golden)
        }
    }

    /// Session ids, the session page's start and the library version vary; the rest must not.
    static func normalised(_ har: String, sessions: [UUID]) -> String {
        var text = ExportFixture.normalised(har, sessions: sessions)
        text = text.replacing(#/"version":"\d+\.\d+\.\d+"/#, with: "\"version\":\"VERSION\"")
        // A page is a session: it starts when the test's store opened, named for the test process.
        text = text.replacing(#/\{"startedDateTime":"[^"]*","id":"(SESSION\d)","title":"[^"]*"/#) {
            "{\"startedDateTime\":\"START\",\"id\":\"\($0.output.1)\",\"title\":\"TITLE\""
        }
        return text
    }

    static let golden = #"""
        {"log":{"version":"1.2","creator":{"name":"LogStore","version":"VERSION"},"entries":[
        {"pageref":"SESSION1","startedDateTime":"2025-06-15T15:06:42.000Z","time":250,"request":{"method":"GET","url":"https://api.example.com/users?page=2","httpVersion":"unknown","cookies":[],"headers":[{"name":"Accept","value":"application/json"},{"name":"X-Trace","value":"t-1"}],"queryString":[{"name":"page","value":"2"}],"headersSize":-1,"bodySize":0},"response":{"status":200,"statusText":"OK","httpVersion":"unknown","cookies":[],"headers":[{"name":"Content-Type","value":"application/json"}],"content":{"size":12,"mimeType":"application/json","text":"{\"users\":[]}"},"redirectURL":"","headersSize":-1,"bodySize":12},"cache":{},"timings":{"blocked":-1,"dns":-1,"connect":-1,"ssl":-1,"send":0,"wait":250,"receive":0},"_taskID":"00000000-0000-4000-8000-000000000001","_label":"network","_taskType":"data","_state":"success"},
        {"pageref":"SESSION1","startedDateTime":"2025-06-15T15:06:43.000Z","time":1500,"request":{"method":"POST","url":"https://api.example.com/orders","httpVersion":"unknown","cookies":[],"headers":[{"name":"Content-Type","value":"application/json"}],"queryString":[],"postData":{"mimeType":"application/json","text":"{\"id\":1}"},"headersSize":-1,"bodySize":8},"response":{"status":0,"statusText":"","httpVersion":"unknown","cookies":[],"headers":[],"content":{"size":0,"mimeType":"x-unknown","text":""},"redirectURL":"","headersSize":-1,"bodySize":-1,"_error":{"domain":"TestDomain","code":7,"description":"connection reset"}},"cache":{},"timings":{"blocked":-1,"dns":-1,"connect":-1,"ssl":-1,"send":0,"wait":1500,"receive":0},"_taskID":"00000000-0000-4000-8000-000000000002","_label":"network","_taskType":"data","_state":"failure"}
        ],"pages":[
        {"startedDateTime":"START","id":"SESSION1","title":"TITLE","pageTimings":{"onContentLoad":-1,"onLoad":-1}}
        ]}}

        """#
}
