import Foundation
import Glibc
@testable import LogStore
@testable import LogStoreConsole
import Testing

/// The live console (`LogStoreConsole`, `logstore serve`): its access rules on every route, its
/// JSON API, the live tail from another process, downloads that open again, and the CLI.
@Suite("Console")
struct ConsoleTests {
    /// Every route the console answers (the files routes too: ``withConsole(messages:_:)``
    /// starts it with a files directory).
    static let routes = [
        "/", "/console.js", "/console.css", "/api/messages", "/api/messages/1", "/api/context?id=1",
        "/api/summary", "/api/tasks", "/api/host", "/api/sessions", "/api/info", "/api/history",
        "/download?format=ndjson", "/api/files/", "/files/note.txt", "/api/bodies/" + String(repeating: "0", count: 40),
        "/api/tasks/00000000-0000-0000-0000-000000000000", "/api/tail", "/no-such-route",
    ]

    /// Starts a console over a fresh store with `count` messages (and a files directory holding
    /// note.txt), runs `body`, then stops it and closes the store.
    func withConsole<T>(
        messages count: Int = 10, _ body: (LogStoreConsole, ConsoleClient, LogStore, URL) async throws -> T
    ) async throws -> T {
        try await withTemporaryStore { store, url in
            for index in 0..<count {
                store.storeMessage(
                    label: index % 2 == 0 ? "http" : "db", level: index % 5 == 4 ? .error : .info,
                    message: "message \(index) <b>bold</b>", metadata: ["index": .string("\(index)")])
            }
            try await store.flush()
            let files = url.deletingLastPathComponent().appendingPathComponent("files-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            try Data("hello\n".utf8).write(to: files.appendingPathComponent("note.txt"))
            defer { try? FileManager.default.removeItem(at: files) }
            let console = try await LogStoreConsole.start(
                store: store, configuration: LogStoreConsole.Configuration(filesDirectory: files))
            do {
                let result = try await body(console, ConsoleClient(port: console.port), store, url)
                await console.stop()
                return result
            } catch {
                await console.stop()
                throw error
            }
        }
    }

    static func token(_ console: LogStoreConsole) throws -> String {
        let query = try #require(URLComponents(url: console.url, resolvingAgainstBaseURL: false)?.queryItems)
        return try #require(query.first { $0.name == "token" }?.value)
    }

    static func bearer(_ console: LogStoreConsole) throws -> [(String, String)] {
        [("Authorization", "Bearer \(try token(console))")]
    }

    @Test func theURLIsLoopbackWithA128BitToken() async throws {
        try await withConsole { console, _, _, _ in
            #expect(console.url.host == "127.0.0.1")
            #expect(!console.isExposed)
            let token = try Self.token(console)
            #expect(token.count == 32 && token.allSatisfy(\.isHexDigit))
        }
    }

    @Test func noRouteAnswersWithoutTheToken() async throws {
        try await withConsole { console, client, _, _ in
            let token = try Self.token(console)
            let wrong = String(token.reversed())
            for route in Self.routes {
                for headers in [[], [("Authorization", "Bearer \(wrong)")], [("Cookie", "logstore_console=\(wrong)")]] {
                    let response = try await client.get(route, headers: headers)
                    #expect(response.status == 401, "\(route) with \(headers) answered \(response.status)")
                    #expect(!response.text.contains("message 1"), "\(route) leaked a message")
                }
                let wrongInQuery = try await client.get(route + (route.contains("?") ? "&" : "?") + "token=\(wrong)")
                #expect(wrongInQuery.status == 401, "\(route) with a wrong ?token answered \(wrongInQuery.status)")
            }
            // With the token, each answers (the tail is a stream: HEAD gets its head alone).
            for route in Self.routes where route != "/api/tail" {
                let response = try await client.get(route, headers: try Self.bearer(console))
                #expect(response.status != 401, "\(route) refused the token")
            }
            let tail = try await client.get("/api/tail", headers: try Self.bearer(console), method: "HEAD")
            #expect(tail.status == 200 && tail.header("content-type")?.hasPrefix("text/event-stream") == true)
        }
    }

    @Test func aRequestNamingAnotherHostIsRefused() async throws {
        try await withConsole { console, client, _, _ in
            for host in ["evil.example", "evil.example:\(console.port)", "127.0.0.1:1", "localhost.evil.example:\(console.port)", ""] {
                let response = try await client.get("/api/info", headers: try Self.bearer(console) + [("Host", host)])
                #expect(response.status == 421 || response.status == 400, "Host \(host) answered \(response.status)")
            }
            for host in ["127.0.0.1:\(console.port)", "localhost:\(console.port)", "LOCALHOST:\(console.port)"] {
                let response = try await client.get("/api/info", headers: try Self.bearer(console) + [("Host", host)])
                #expect(response.status == 200, "Host \(host) answered \(response.status)")
            }
        }
    }

    @Test func theTokenMovesIntoAStrictCookie() async throws {
        try await withConsole { console, client, _, _ in
            let token = try Self.token(console)
            let first = try await client.get("/?token=\(token)")
            #expect(first.status == 303)
            #expect(first.header("location") == "/")
            let cookie = try #require(first.header("set-cookie"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.hasPrefix("logstore_console=\(token)"))
            let page = try await client.get("/", headers: [("Cookie", "theme=dark; logstore_console=\(token)")])
            #expect(page.status == 200)
            #expect(page.header("content-type") == "text/html; charset=utf-8")
            let policy = try #require(page.header("content-security-policy"))
            #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"))
            #expect(page.header("x-content-type-options") == "nosniff")
            #expect(page.header("access-control-allow-origin") == nil)
            #expect(page.text.contains("<script src=\"console.js\""))
        }
    }

    @Test func messagesAreFilteredSearchedAndPaged() async throws {
        try await withConsole(messages: 50) { console, client, _, _ in
            let auth = try Self.bearer(console)
            let errors = try #require(try await client.get("/api/messages?level=error&limit=3", headers: auth).json() as? [String: Any])
            let page = try #require(errors["messages"] as? [[String: Any]])
            #expect(page.count == 3)
            #expect(page.allSatisfy { $0["level"] as? String == "error" })
            // Newest first, and the next page continues after the cursor without overlap.
            let ids = page.compactMap { $0["id"] as? Int }
            #expect(ids == ids.sorted(by: >))
            let next = try #require(errors["next"] as? String)
            let second = try #require(try await client.get("/api/messages?level=error&limit=3&cursor=\(next)", headers: auth).json() as? [String: Any])
            let secondIDs = (second["messages"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
            #expect(secondIDs.count == 3 && Set(secondIDs).isDisjoint(with: ids) && secondIDs.max()! < ids.min()!)

            // Full-text search, with the match as UTF-16 offsets of the text.
            let found = try #require(try await client.get("/api/messages?q=message+17", headers: auth).json() as? [String: Any])
            let hit = try #require((found["messages"] as? [[String: Any]])?.first { $0["id"] as? Int == 18 })
            let text = try #require(hit["text"] as? String)
            #expect(text == "message 17 <b>bold</b>")
            let matches = try #require(hit["matches"] as? [[Int]])
            #expect(matches.map { Array(text.utf16)[$0[0]..<$0[1]] }.map { String(decoding: $0, as: UTF16.self) } == ["message", "17"])

            let labels = try #require(try await client.get("/api/messages?label=db&limit=1000", headers: auth).json() as? [String: Any])
            #expect((labels["messages"] as? [[String: Any]])?.count == 25)

            let one = try #require(try await client.get("/api/messages/7", headers: auth).json() as? [String: Any])
            #expect(one["text"] as? String == "message 6 <b>bold</b>")
            #expect((one["metadata"] as? [String: String])?["index"] == "6")
            #expect(try await client.get("/api/messages/9999", headers: auth).status == 404)

            let context = try #require(try await client.get("/api/context?id=20&count=2", headers: auth).json() as? [String: Any])
            #expect((context["messages"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [18, 19, 20, 21, 22])

            let summary = try #require(try await client.get("/api/summary?buckets=10", headers: auth).json() as? [String: Any])
            #expect(summary["total"] as? Int == 50)
            #expect((summary["histogram"] as? [Any])?.count == 10)
        }
    }

    /// `level=` means what `--level` and the exported page's `#level=` mean (one parser,
    /// `LogStore.Level.range(parsing:)`): that level and above, however the documented `+`
    /// arrives (a bare `+` in a query is a space), or a range; `maxLevel` narrows it.
    @Test func aLevelMeansThatLevelAndAboveHoweverThePlusArrives() async throws {
        // 10 messages: 2 errors (the 5th and the 10th), 8 infos.
        try await withConsole(messages: 10) { console, client, _, _ in
            let auth = try Self.bearer(console)
            func levels(_ query: String) async throws -> [String] {
                let response = try await client.get("/api/messages?\(query)", headers: auth)
                #expect(response.status == 200, "\(query): \(response.text)")
                let page = try #require(try response.json() as? [String: Any])
                return (page["messages"] as? [[String: Any]] ?? []).compactMap { $0["level"] as? String }
            }
            for query in ["level=warning+", "level=warning%2B", "level=warning%20", "level=warning", "level=WARN+", "level=warning+&maxLevel=critical"] {
                #expect(try await levels(query) == ["error", "error"], "\(query)")
            }
            #expect(try await levels("level=info...info") == Array(repeating: "info", count: 8))
            #expect(try await levels("level=info...error+").count == 10)
            #expect(try await levels("level=trace&maxLevel=info") == Array(repeating: "info", count: 8))
            // The histogram reads the same filters.
            let summary = try #require(try await client.get("/api/summary?level=warning+", headers: auth).json() as? [String: Any])
            #expect(summary["total"] as? Int == 2)

            for (query, words) in [
                ("level=error...info", "must not be above"), ("level=loud+", "no level is called loud"),
                ("level=error&maxLevel=info", "is above maxLevel"),
            ] {
                let response = try await client.get("/api/messages?\(query)", headers: auth)
                #expect(response.status == 400, "\(query): \(response.status)")
                let error = (try? response.json() as? [String: String])?["error"] ?? ""
                #expect(error.contains(words), "\(query): \(error)")
            }
        }
    }

    /// A task's details carry the phases `logstore task` and the exported page draw
    /// (`phases(taskEnd:)`): a request that timed out waits until the task's end, with no
    /// response, rather than ending at a first byte that never came.
    @Test func aTaskCarriesThePhasesOfItsTimeline() async throws {
        try await withConsole(messages: 0) { console, client, store, _ in
            let auth = try Self.bearer(console)
            try await TaskTimelineFixture.record(store)
            func seconds(_ milliseconds: Double) -> Double { TaskTimelineFixture.at(milliseconds).timeIntervalSince1970 }

            let timedOut = try #require(try await client.get(
                "/api/tasks/\(TaskTimelineFixture.timedOutID.uuidString)", headers: auth).json() as? [String: Any])
            // The details' own keys are all still there.
            #expect((timedOut["summary"] as? [String: Any])?["id"] as? String == TaskTimelineFixture.timedOutID.uuidString)
            #expect((timedOut["transactions"] as? [Any])?.count == 1)
            let phases = try #require((timedOut["phases"] as? [[[String: Any]]])?.first)
            #expect(phases.compactMap { $0["name"] as? String } == ["DNS", "Connect", "TLS", "Request", "Waiting"])
            let waiting = try #require(phases.last)
            #expect(abs((waiting["start"] as? Double ?? 0) - seconds(10)) < 1e-5)
            #expect(abs((waiting["end"] as? Double ?? 0) - seconds(10_010)) < 1e-5)
            #expect(waiting["noResponse"] as? Bool == true)
            #expect(phases.dropLast().allSatisfy { $0["noResponse"] == nil && $0["end"] is Double })
            // Connect stops where TLS starts.
            #expect(abs((phases[1]["end"] as? Double ?? 0) - seconds(4)) < 1e-5)

            let answered = try #require(try await client.get(
                "/api/tasks/\(TaskTimelineFixture.answeredID.uuidString)", headers: auth).json() as? [String: Any])
            let answeredPhases = try #require((answered["phases"] as? [[[String: Any]]])?.first)
            #expect(answeredPhases.compactMap { $0["name"] as? String } == ["DNS", "Connect", "TLS", "Request", "Waiting", "Response"])
            #expect(abs((answeredPhases[4]["end"] as? Double ?? 0) - seconds(40)) < 1e-5)
            #expect(answeredPhases.allSatisfy { $0["noResponse"] == nil })
        }
    }

    /// The hand-written JSON of messages means what `JSONEncoder` writes of the same value,
    /// for text that needs every escape.
    @Test func messageJSONMatchesTheEncoder() throws {
        let text = "quote \" backslash \\ newline \n tab \t nul \u{0} bell \u{7} é 😀 \u{2028} </script>"
        let message = LogStore.Message(
            id: 42, createdAt: Date(timeIntervalSince1970: 1_790_000_000.123456), level: .warning, label: "l\"abel",
            text: text,
            metadata: ["b": .array([.string("x\n"), .dictionary(["z": .string("\u{1}")])]), "a": .stringConvertible(7)],
            file: "F.swift", function: "f()", line: 3, threadID: 9, threadName: nil, sessionID: UUID())
        let range = try #require(text.range(of: "backslash"))
        for console in [ConsoleMessage(message, matches: [range]), ConsoleMessage(message)] {
            var json = JSONText()
            json.message(console)
            let ours = try JSONSerialization.jsonObject(with: Data(json.bytes)) as? NSDictionary
            let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(console)) as? NSDictionary
            #expect(ours != nil && ours == encoded, "\(String(decoding: json.bytes, as: UTF8.self))")
        }
    }

    @Test func badParametersGetATypedError() async throws {
        try await withConsole { console, client, _, _ in
            let auth = try Self.bearer(console)
            for (route, words) in [
                ("/api/messages?level=loud", "no level is called loud"),
                ("/api/messages?limit=0", "limit must be"),
                ("/api/messages?since=yesterday", "since must be"),
                ("/api/messages?cursor=zz", "not a cursor"),
                ("/api/messages?q=%ZZ", "percent-encoded"),
                ("/api/messages?q=%22unterminated&syntax=fts5", "not a valid FTS5 query"),
                ("/api/tasks?status=abc", "status is"),
                ("/download?format=zip", "format is"),
                ("/api/messages/abc", "positive number"),
            ] {
                let response = try await client.get(route, headers: auth)
                #expect(response.status == 400, "\(route): \(response.status) \(response.text)")
                let error = (try? response.json() as? [String: String])?["error"] ?? ""
                #expect(error.contains(words), "\(route): \(error)")
            }
        }
    }

    /// A child process logs while the test follows the tail over Server-Sent Events: every
    /// message arrives, in order; a reconnect with `Last-Event-ID` resumes right after it.
    @Test func theLiveTailFollowsAnotherProcessAsItWrites() async throws {
        try await withConsole(messages: 0) { console, client, _, url in
            let auth = try Self.bearer(console)
            let count = 600
            // From the store's first id (`after=m0`), not "now": in a busy parallel run the
            // stream may open only after the child logged some or all of its messages, and
            // those must come too, in the same order. (The browser test waits for an open
            // stream before the child starts.)
            async let followed = client.events("/api/tail?label=child&after=m0", headers: auth, count: count, seconds: 60)
            try await Task.sleep(for: .milliseconds(300))
            let child = try await SpawnedProcess.run(testHelperExecutable, ["writers", url.path, "\(count)", "child"], seconds: 60)
            #expect(child.status == 0, "\(child.output)")
            let events = try await followed
            let texts = try events.map { event in
                try #require(try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])["text"] as? String
            }
            #expect(texts == (0..<count).map { "child \($0)" })
            #expect(events.allSatisfy { $0.id?.hasPrefix("m") == true })

            // Resuming after the 100th: the 101st comes next.
            let resumeAfter = try #require(events[99].id)
            let resumed = try await client.events(
                "/api/tail?label=child", headers: auth + [("Last-Event-ID", resumeAfter)], count: 5)
            let resumedTexts = try resumed.map { event in
                try #require(try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])["text"] as? String
            }
            #expect(resumedTexts == (100..<105).map { "child \($0)" })
        }
    }

    @Test func aDownloadOpensAgainAndResumes() async throws {
        try await withConsole(messages: 300) { console, client, _, url in
            let auth = try Self.bearer(console)
            let download = try await client.get("/download?level=error", headers: auth)
            #expect(download.status == 200)
            #expect(download.header("content-length") == "\(download.body.count)")
            #expect(download.header("content-disposition")?.contains(".lsarchive") == true)
            let etag = try #require(download.header("etag"))
            let archive = url.deletingLastPathComponent().appendingPathComponent("download-\(UUID().uuidString).lsarchive")
            defer { try? FileManager.default.removeItem(at: archive) }
            try Data(download.body).write(to: archive)
            let opened = try await LogStore(archiveURL: archive)
            let count = try await opened.count(MessageQuery())
            try await opened.close()
            #expect(count == 60)

            // The rest from byte 1000, from the same file (If-Range names it).
            let rest = try await client.get("/download?level=error", headers: auth + [("Range", "bytes=1000-"), ("If-Range", etag)])
            #expect(rest.status == 206)
            #expect(rest.header("content-range") == "bytes 1000-\(download.body.count - 1)/\(download.body.count)")
            #expect(rest.body == Array(download.body[1000...]))
            let past = try await client.get("/download?level=error", headers: auth + [("Range", "bytes=999999999-"), ("If-Range", etag)])
            #expect(past.status == 416)
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs curl"))
    func curlDownloadsAFilteredArchive() async throws {
        try await withConsole(messages: 100) { console, _, _, url in
            let archive = url.deletingLastPathComponent().appendingPathComponent("curl-\(UUID().uuidString).lsarchive")
            defer { try? FileManager.default.removeItem(at: archive) }
            let run = try await SpawnedProcess.run(
                URL(fileURLWithPath: "/usr/bin/curl"),
                ["-sS", "-f", "-o", archive.path, "-H", "Authorization: Bearer \(try Self.token(console))",
                 "http://127.0.0.1:\(console.port)/download?label=db"],
                seconds: 60)
            #expect(run.status == 0, "\(run.output)")
            // `logstore open` reads it with the count the API gives for the same filters.
            let open = try await SpawnedProcess.run(ServeCLITests.logstore, ["open", archive.path, "--json"], seconds: 60)
            #expect(open.status == 0, "\(open.output)")
            let info = try #require(try JSONSerialization.jsonObject(with: Data(open.output.utf8)) as? [String: Any])
            let summary = try #require(try await ConsoleClient(port: console.port).get(
                "/api/summary?label=db", headers: try Self.bearer(console)).json() as? [String: Any])
            #expect(info["messageCount"] as? Int == 50)
            #expect(summary["total"] as? Int == 50)
        }
    }

    /// The file browser through its routes: hostile paths in every encoding are refused with a
    /// 4xx, and the secret beside the directory (reachable by a symbolic link inside it) never
    /// comes back. `FileBrowser`'s own table (ConsoleFilesTests) has the full list.
    @Test func theFilesRoutesNeverLeaveTheirDirectory() async throws {
        try await withConsole { console, client, _, url in
            let auth = try Self.bearer(console)
            let page = try #require(try await client.get("/api/files/", headers: auth).json() as? [String: Any])
            let names = (page["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(names.contains("note.txt"))
            let directory = try #require(try FileManager.default.contentsOfDirectory(
                at: url.deletingLastPathComponent(), includingPropertiesForKeys: nil
            ).first { $0.lastPathComponent.hasPrefix("files-") })
            let secret = directory.deletingLastPathComponent().appendingPathComponent("secret-\(UUID().uuidString).txt")
            try Data("TOP-SECRET".utf8).write(to: secret)
            defer { try? FileManager.default.removeItem(at: secret) }
            try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("link-out"), withDestinationURL: secret)
            let name = secret.lastPathComponent
            for prefix in ["/files/", "/api/files/"] {
                for path in [
                    "../\(name)", "..%2f\(name)", "%2e%2e/\(name)", "%2E%2E%2F\(name)", ".%2e/\(name)", "%252e%252e/\(name)",
                    "link-out", "/\(secret.path)", "%2f\(secret.path.dropFirst())", "..%5c\(name)", "note.txt%00",
                    "%c0%ae%c0%ae/\(name)", "%e2%80%a4%e2%80%a4/\(name)", "%ef%bc%8e%ef%bc%8e/\(name)", "./note.txt",
                ] {
                    let response = try await client.get(prefix + path, headers: auth)
                    #expect((400...404).contains(response.status), "\(prefix)\(path) answered \(response.status)")
                    #expect(!response.text.contains("TOP-SECRET"), "\(prefix)\(path) leaked the secret")
                }
            }
            let note = try await client.get("/files/note.txt", headers: auth)
            #expect(note.text == "hello\n")
            #expect(note.header("content-disposition")?.hasPrefix("attachment") == true)
            let preview = try #require(try await client.get("/api/files/note.txt", headers: auth).json() as? [String: Any])
            #expect((preview["preview"] as? [String: Any])?["text"] as? String == "hello\n")
        }
    }

    @Test func tasksAndTheirBodiesAreServedAsData() async throws {
        try await withConsole(messages: 0) { console, client, store, _ in
            let auth = try Self.bearer(console)
            let url = try #require(URL(string: "https://api.example.com/v1/page"))
            store.storeRequest(
                NetworkRequest(url: url, method: "GET"),
                response: NetworkResponse(url: url, statusCode: 500, headers: ["Content-Type": "text/html"]),
                error: nil, data: Data("<script>alert(1)</script>".utf8), metrics: nil)
            try await store.flush()
            let page = try #require(try await client.get("/api/tasks?failed=true", headers: auth).json() as? [String: Any])
            let task = try #require((page["tasks"] as? [[String: Any]])?.first)
            #expect(task["statusCode"] as? Int == 500)
            let id = try #require(task["id"] as? String)
            let details = try #require(try await client.get("/api/tasks/\(id)", headers: auth).json() as? [String: Any])
            let key = try #require(details["responseBodyKey"] as? String)
            let body = try await client.get("/api/bodies/\(key)", headers: auth)
            #expect(body.text == "<script>alert(1)</script>")
            #expect(body.header("content-type") == "application/octet-stream")
            #expect(body.header("content-disposition")?.hasPrefix("attachment") == true)
        }
    }

    @Test func theHostPanelIsLive() async throws {
        try await withConsole { console, client, _, _ in
            let auth = try Self.bearer(console)
            let now = try #require(try await client.get("/api/host", headers: auth).json() as? [String: Any])
            let host = try #require(now["host"] as? [String: Any])
            #expect((host["memoryTotal"] as? Int ?? 0) > 0)
            #expect(!(host["kernelVersion"] as? String ?? "").isEmpty)
            let process = try #require(now["process"] as? [String: Any])
            #expect(process["pid"] as? Int == Int(getpid()))
            #expect((process["residentMemory"] as? Int ?? 0) > 0)
            let sessions = try #require(try await client.get("/api/sessions", headers: auth).json() as? [[String: Any]])
            #expect(sessions.count == 1)
            let history = try await client.get("/api/history", headers: auth)
            #expect(history.status == 200)
        }
    }

    @Test func stopEndsOpenTailsAndFreesThePort() async throws {
        try await withTemporaryStore { store, _ in
            let console = try await LogStoreConsole.start(store: store)
            let client = ConsoleClient(port: console.port)
            let auth = try Self.bearer(console)
            let stream = Task { try await client.events("/api/tail", headers: auth, count: 1, seconds: 20) }
            try await Task.sleep(for: .milliseconds(200))
            let started = ContinuousClock.now
            await console.stop()
            // A stop that waited for the live tail would never return; a saturated run is slow.
            #expect(ContinuousClock.now - started < .seconds(TimeScale.scaled(30)))
            await #expect(throws: ConsoleClient.Failure.self) { _ = try await stream.value }
            await #expect(throws: ConsoleClient.Failure.self) { _ = try await client.get("/api/info", headers: auth, seconds: 2) }
        }
    }
}
