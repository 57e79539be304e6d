import Foundation
import LogStore
import Testing
@testable import LogStoreCLI
@testable import LogStoreDemo

/// The `logstore` command, run in-process on real temporary stores.
@Suite struct CLITests {
    struct Run {
        var status: Int32
        var output: String
        var error: String

        var lines: [String] { output.split(separator: "\n").map(String.init) }
    }

    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    func logstore(_ arguments: String..., now: Date = CLITests.now) async -> Run {
        var output = ""
        var error = ""
        let status = await LogStoreCommand.run(
            arguments, output: &output, error: &error, environment: CommandEnvironment(now: now))
        return Run(status: status, output: output, error: error)
    }

    /// A store with 30 known messages: labels `db` (every third) and `http`, levels cycling
    /// trace…critical, one a minute up to `now`.
    func makeStore(at url: URL) async throws {
        let store = try await LogStore(storeURL: url, options: [.create])
        for index in 0..<30 {
            store.storeMessage(
                createdAt: Self.now.addingTimeInterval(Double(index - 29) * 60),
                label: index % 3 == 0 ? "db" : "http",
                level: LogStore.Level(rawValue: Int16(index % 7))!,
                message: "message \(index)\nsecond line",
                metadata: ["index": .string("\(index)"), "nested": ["tags": ["a", "b c"]]])
        }
        try await store.flush()
        try await store.close()
    }

    func jsonObject(_ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    // MARK: demo

    @Test func demoWritesTheRequestedMessages() async throws {
        try await withTemporaryStoreURL { url in
            let run = await logstore("demo", url.path, "--count", "500", "--sessions", "2", "--seed", "7")
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.contains("500 messages in 2 sessions"))
            #expect(run.output.contains("logstore info \(url.path)"))
            #expect(run.output.contains("--level warning --limit 20"))
            let store = try await LogStore(storeURL: url, options: [.readonly])
            let info = try await store.info()
            try await store.close()
            #expect(info.messageCount == 500)
            #expect(info.sessionCount == 2)
            #expect(info.droppedEventCount == 0)
        }
    }

    @Test func demoRefusesANonEmptyStoreWithoutAppend() async throws {
        try await withTemporaryStoreURL { url in
            #expect(await logstore("demo", url.path, "--count", "50").status == 0)
            let refused = await logstore("demo", url.path, "--count", "50")
            #expect(refused.status == 1)
            #expect(refused.error.contains("--append"))
            let appended = await logstore("demo", url.path, "--count", "50", "--append", "--sessions", "1")
            #expect(appended.status == 0, "\(appended.error)")
            let info = await logstore("info", url.path, "--json")
            let object = try jsonObject(info.output)
            #expect(object["messageCount"] as? Int == 100)
        }
    }

    @Test func demoTimesIncreaseAndEndByNow() async throws {
        try await withTemporaryStoreURL { url in
            #expect(await logstore("demo", url.path, "--count", "2000", "--sessions", "3", "--seed", "1").status == 0)
            let store = try await LogStore(storeURL: url, options: [.readonly])
            let page = try await store.messages(MessageQuery(order: .oldestFirst, limit: 5000, includesTaskMessages: true))
            try await store.close()
            // The network tasks' technical messages share the timeline (and carry the task's id).
            let logged = page.messages.filter { $0.metadata["taskID"] == nil }
            #expect(logged.count == 2000)
            #expect(page.messages.count > 2000)
            let times = page.messages.map(\.createdAt)
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
            #expect(times.last! <= CLITests.now)
            #expect(times.first! >= CLITests.now.addingTimeInterval(-3 * 3600))
            #expect(Set(page.messages.map(\.label)).count >= 15)
            #expect(page.messages.contains { !$0.metadata.isEmpty })
        }
    }

    // MARK: info

    @Test func infoJSONHasTheRequiredKeys() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let run = await logstore("info", url.path, "--json")
            #expect(run.status == 0, "\(run.error)")
            let object = try jsonObject(run.output)
            for key in ["messageCount", "taskCount", "blobCount", "totalStoreSize", "droppedEventCount"] {
                #expect(object[key] != nil, "missing \(key)")
            }
            #expect(object["messageCount"] as? Int == 30)
            let created = try #require(object["creationDate"] as? String)
            #expect(ValueParsers.isoDate(created) != nil)
        }
    }

    @Test func infoPrintsAlignedFields() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let run = await logstore("info", url.path)
            #expect(run.status == 0)
            #expect(run.lines.contains { $0.hasPrefix("Messages:") && $0.hasSuffix(" 30") })
            // Every value starts in the same column.
            let valueColumns = Set(run.lines.map { line -> Int in
                let afterKey = line.range(of: ": ")!.upperBound
                return line.distance(from: line.startIndex, to: line[afterKey...].firstIndex { $0 != " " }!)
            })
            #expect(valueColumns.count == 1)
        }
    }

    // MARK: messages

    @Test func messagesFilterByLevel() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let run = await logstore("messages", url.path, "--level", "warning", "--json")
            #expect(run.status == 0)
            let levels = try run.lines.map { try jsonObject($0)["level"] as? String }
            #expect(levels.count == (0..<30).filter { $0 % 7 >= 4 }.count)
            #expect(levels.allSatisfy { ["warning", "error", "critical"].contains($0 ?? "") })

            let range = await logstore("messages", url.path, "--level", "info...error", "--json")
            let rangeLevels = try range.lines.map { try jsonObject($0)["level"] as? String ?? "" }
            #expect(Set(rangeLevels) == ["info", "notice", "warning", "error"])
        }
    }

    @Test func messagesFilterByLabelAndTime() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let db = await logstore("messages", url.path, "--label", "db", "--json")
            let labels = try db.lines.map { try jsonObject($0)["label"] as? String }
            #expect(labels.count == 10)
            #expect(labels.allSatisfy { $0 == "db" })

            // One message a minute up to `now`: the last 10 minutes hold 11 (both ends included).
            let recent = await logstore("messages", url.path, "--since", "10m", "--json")
            #expect(recent.lines.count == 11)
            let iso = await logstore("messages", url.path, "--until", "2025-06-15T15:00:00Z", "--json")
            #expect(iso.status == 0)
        }
    }

    @Test func messagesPagesContinueWithTheCursor() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            var seen: [String] = []
            var arguments = ["messages", url.path, "--limit", "12", "--oldest-first"]
            for _ in 0..<5 {
                var output = ""
                var error = ""
                let status = await LogStoreCommand.run(
                    arguments, output: &output, error: &error, environment: CommandEnvironment(now: Self.now))
                #expect(status == 0)
                let lines = output.split(separator: "\n").map(String.init)
                let messages = lines.filter { !$0.hasPrefix("-- more:") }
                seen += messages
                guard let more = lines.last, more.hasPrefix("-- more:") else { break }
                let words = more.split(separator: " ").map(String.init)
                let cursor = try #require(words.last)
                #expect(words.contains("--oldest-first"))
                arguments = ["messages", url.path, "--limit", "12", "--oldest-first", "--cursor", cursor]
            }
            #expect(seen.count == 30)
            #expect(seen.first?.contains("message 0\\nsecond line") == true)
            #expect(seen.last?.contains("message 29") == true)
            #expect(Set(seen).count == 30)
        }
    }

    @Test func messagesWithoutMorePagesPrintNoCursor() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let run = await logstore("messages", url.path, "--limit", "30")
            #expect(run.lines.count == 30)
            #expect(!run.output.contains("--cursor"))
        }
    }

    @Test func messagesJSONIsOneObjectPerLine() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let run = await logstore("messages", url.path, "--limit", "5", "--json")
            #expect(run.status == 0)
            #expect(run.lines.count == 5)
            #expect(run.error.contains("--cursor m"))
            for line in run.lines {
                let object = try jsonObject(line)
                for key in ["id", "time", "level", "label", "text", "metadata", "file", "function", "line",
                            "threadID", "threadName", "session"] {
                    #expect(object.keys.contains(key), "missing \(key)")
                }
                #expect((object["text"] as? String)?.contains("\nsecond line") == true)
                let metadata = try #require(object["metadata"] as? [String: Any])
                #expect(metadata["nested"] is [String: Any])
            }
        }
    }

    @Test func messagesHumanLinesAreSingleAndUncolouredByDefault() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let run = await logstore("messages", url.path, "--limit", "1")
            let line = try #require(run.lines.first)
            #expect(line == "2025-06-15T15:06:40.000Z DEBUG    http message 29\\nsecond line  index=29 nested={tags=[a,\"b c\"]}")
            #expect(!run.output.contains("\u{1B}"))

            var output = ""
            var error = ""
            _ = await LogStoreCommand.run(
                ["messages", url.path, "--limit", "1"], output: &output, error: &error,
                environment: CommandEnvironment(usesColors: true, now: Self.now))
            #expect(output.contains("\u{1B}["))
        }
    }

    @Test func messagesRejectBadValues() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            for arguments in [
                ["--level", "loud"], ["--level", "error...info"], ["--since", "last tuesday"], ["--limit", "0"],
                ["--cursor", "x"], ["--session", "not-a-uuid"],
            ] {
                var output = ""
                var error = ""
                let status = await LogStoreCommand.run(
                    ["messages", url.path] + arguments, output: &output, error: &error)
                #expect(status == 64, "\(arguments)")
                #expect(error.contains("--\(arguments[0].dropFirst(2))"))
            }
        }
    }

    // MARK: sessions

    @Test func sessionsListsTheDemoSessions() async throws {
        try await withTemporaryStoreURL { url in
            #expect(await logstore("demo", url.path, "--count", "90", "--sessions", "3").status == 0)
            let store = try await LogStore(storeURL: url, options: [.readonly])
            let sessions = try await store.sessions()
            try await store.close()
            #expect(sessions.count == 3)

            let run = await logstore("sessions", url.path)
            #expect(run.status == 0)
            #expect(run.output.contains("Session 3 of 3"))
            for session in sessions { #expect(run.output.contains(session.id.uuidString)) }
            for field in ["Host:", "OS:", "Kernel:", "CPU:", "Memory:", "Disk:", "Uptime:", "Interfaces:"] {
                #expect(run.output.contains(field), "missing \(field)")
            }

            let json = await logstore("sessions", url.path, "--json")
            let array = try #require(JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
            #expect(array.count == 3)
            #expect(array.first?["host"] is [String: Any])

            let filtered = await logstore("messages", url.path, "--session", sessions[1].id.uuidString, "--json")
            #expect(filtered.lines.count == 30)
        }
    }

    // MARK: network tasks

    /// A demo store with `tasks` network tasks (the first ones are the demo's fixed showcase:
    /// a catalog page sent with credentials, images, a timeout, an export, 4xx and 5xx, …).
    func makeDemoStore(at url: URL, count: Int = 300, tasks: Int = 60) async throws {
        let run = await logstore("demo", url.path, "--count", "\(count)", "--tasks", "\(tasks)", "--sessions", "2", "--seed", "11")
        try #require(run.status == 0, "\(run.error)")
    }

    /// Every task of the store as `tasks --json` prints them, oldest first.
    func allTasks(_ url: URL, _ filters: String...) async throws -> [[String: Any]] {
        let run = await logstore(["tasks", url.path, "--json", "--oldest-first", "--limit", "100000"] + filters)
        try #require(run.status == 0, "\(run.error)")
        return try run.lines.map(jsonObject)
    }

    func logstore(_ arguments: [String]) async -> Run {
        var output = ""
        var error = ""
        let status = await LogStoreCommand.run(
            arguments, output: &output, error: &error, environment: CommandEnvironment(now: Self.now))
        return Run(status: status, output: output, error: error)
    }

    @Test func demoWritesTasksAndBlobs() async throws {
        try await withTemporaryStoreURL { url in
            let run = await logstore("demo", url.path, "--count", "400", "--tasks", "40", "--sessions", "2", "--seed", "3")
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.contains("400 messages in 2 sessions"))
            #expect(run.output.contains("40 tasks to "))
            #expect(run.output.contains("Authorization: <private>"))
            #expect(run.output.contains("logstore blobs \(url.path)"))
            let object = try jsonObject(await logstore("info", url.path, "--json").output)
            #expect(object["messageCount"] as? Int == 400)
            #expect(object["taskCount"] as? Int == 40)
            #expect((object["blobCount"] as? Int ?? 0) > 0)
            #expect((object["blobsDecompressedSize"] as? Int ?? 0) > (object["blobsSize"] as? Int ?? 0))
            // Exports are large enough to be files.
            let files = try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent("blobs").path)
            #expect(!files.isEmpty)

            let none = await logstore("demo", url.path, "--count", "10", "--tasks", "0", "--append", "--sessions", "1")
            #expect(none.status == 0, "\(none.error)")
            #expect(!none.output.contains("Network tasks:"))
            #expect(try jsonObject(await logstore("info", url.path, "--json").output)["taskCount"] as? Int == 40)
        }
    }

    @Test func demoTasksAreRecordedAsWritten() async throws {
        try await withTemporaryStoreURL { url in
            try await makeDemoStore(at: url)
            let store = try await LogStore(storeURL: url, options: [.readonly])
            let page = try await store.tasks(TaskQuery(order: .oldestFirst, limit: 1000))
            let images = page.tasks.filter { $0.contentType?.hasPrefix("image/") == true && $0.statusCode == 200 }
            var formats: Set<String> = []
            for image in images {
                let details = try #require(try await store.task(id: image.id))
                let format = try #require(details.metadata["imageFormat"], "\(image.url ?? "")")
                formats.insert(format)
                let width = try #require(details.metadata["imageWidth"].flatMap { Int($0) })
                #expect(image.url?.contains("/\(width)x") == true || image.url?.contains(".gif") == true)
            }
            #expect(formats == ["png", "jpeg", "gif"])
            // Failures: timeouts and refused connections without a response, and 5xx answers.
            #expect(page.tasks.contains { $0.error?.code == -1001 && $0.statusCode == nil && $0.state == .failure })
            #expect(page.tasks.contains { ($0.statusCode ?? 0) >= 500 && $0.state == .failure })
            #expect(page.tasks.filter { $0.state == .pending }.count == 2)
            #expect(page.tasks.contains { $0.taskType == .download && $0.progress != nil })
            // Metrics with phases, and a redirect with two transactions.
            let first = try #require(try await store.task(id: page.tasks[0].id))
            #expect(first.transactions.first?.responseStart != nil)
            var redirected = false
            for task in page.tasks where task.url?.hasPrefix("https://cdn.") == true {
                if try await store.task(id: task.id)?.transactions.count == 2 { redirected = true }
            }
            #expect(redirected)
            try await store.close()
        }
    }

    @Test func tasksJSONLinesParseAndFiltersWork() async throws {
        try await withTemporaryStoreURL { url in
            try await makeDemoStore(at: url)
            let all = try await allTasks(url)
            #expect(all.count == 60)
            for task in all {
                for key in ["id", "rowID", "createdAt", "method", "url", "host", "state", "label", "sessionID"] {
                    #expect(task[key] != nil, "missing \(key)")
                }
                #expect(UUID(uuidString: task["id"] as? String ?? "") != nil)
            }
            func status(_ task: [String: Any]) -> Int? { task["statusCode"] as? Int }

            let clientErrors = try await allTasks(url, "--status", "4xx")
            #expect(!clientErrors.isEmpty)
            #expect(clientErrors.allSatisfy { (400...499).contains(status($0) ?? 0) })
            #expect(clientErrors.count == all.filter { (400...499).contains(status($0) ?? 0) }.count)

            let serverErrors = try await allTasks(url, "--status", "500-599")
            #expect(!serverErrors.isEmpty)
            #expect(serverErrors.count == all.filter { (500...599).contains(status($0) ?? 0) }.count)
            #expect(try await allTasks(url, "--status", "200").count == all.filter { status($0) == 200 }.count)

            let posts = try await allTasks(url, "--method", "post")
            #expect(!posts.isEmpty)
            #expect(posts.allSatisfy { $0["method"] as? String == "POST" })
            #expect(posts.count == all.filter { $0["method"] as? String == "POST" }.count)
            let writes = try await allTasks(url, "--method", "POST", "--method", "PUT")
            #expect(writes.count == all.filter { ["POST", "PUT"].contains($0["method"] as? String ?? "") }.count)

            let failures = try await allTasks(url, "--state", "failure")
            // States by name, as levels are in `messages --json`.
            #expect(!failures.isEmpty)
            #expect(failures.allSatisfy { $0["state"] as? String == "failure" })
            #expect(failures.count == all.filter { $0["state"] as? String == "failure" }.count)
            #expect(all.allSatisfy { ["data", "download", "upload", "stream", "webSocket"].contains($0["taskType"] as? String ?? "") })
            #expect(try await allTasks(url, "--state", "pending").count == 2)

            let host = try #require(all.first?["host"] as? String)
            let onHost = try await allTasks(url, "--host", host.uppercased())
            #expect(onHost.count == all.filter { $0["host"] as? String == host }.count)
            #expect(try await allTasks(url, "--label", "payments").allSatisfy { $0["label"] as? String == "payments" })
            #expect(try await allTasks(url, "--since", "2025-06-15T15:06:41Z").isEmpty)
        }
    }

    @Test func tasksHumanLinesAndPages() async throws {
        try await withTemporaryStoreURL { url in
            try await makeDemoStore(at: url)
            var seen: [String] = []
            var arguments = ["tasks", url.path, "--limit", "25", "--oldest-first"]
            for _ in 0..<5 {
                let run = await logstore(arguments)
                #expect(run.status == 0)
                let lines = run.lines
                // Every page starts with the header row.
                #expect(lines.first?.hasPrefix("TIME ") == true)
                #expect(lines.first?.contains(" METHOD ") == true)
                seen += lines.dropFirst().filter { !$0.hasPrefix("-- more:") }
                guard let more = lines.last, more.hasPrefix("-- more: logstore tasks ") else { break }
                arguments = ["tasks", url.path, "--limit", "25", "--oldest-first", "--cursor", try #require(more.split(separator: " ").last.map(String.init))]
            }
            #expect(seen.count == 60)
            #expect(Set(seen).count == 60)
            let first = try #require(seen.first)
            #expect(first.hasPrefix("2025-06-15T"))
            #expect(first.contains(" GET     200 "))
            #expect(first.contains("https://catalog.shop.internal/v1/products?page="))
            #expect(UUID(uuidString: String(first.suffix(36))) != nil)
            #expect(seen.contains { $0.contains(" ERR ") && $0.contains("The request timed out.") })
            #expect(!seen.joined().contains("\u{1B}"))

            var output = ""
            var error = ""
            _ = await LogStoreCommand.run(
                ["tasks", url.path, "--status", "5xx"], output: &output, error: &error,
                environment: CommandEnvironment(usesColors: true, now: Self.now))
            #expect(output.contains("\u{1B}[1;31m5"))
            let none = await logstore("tasks", url.path, "--host", "nowhere.example")
            #expect(none.output == "No tasks match.\n")
        }
    }

    @Test func taskShowsRedactedHeadersPrettyJSONAndTimings() async throws {
        try await withTemporaryStoreURL { url in
            try await makeDemoStore(at: url)
            let all = try await allTasks(url)
            // The first task is a catalog page fetched with a bearer token.
            let first = try #require(all.first?["id"] as? String)
            let run = await logstore("task", url.path, first)
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.hasPrefix("GET https://catalog.shop.internal/v1/products?page="))
            #expect(run.lines.contains("  Authorization: <private>"))
            #expect(!run.output.contains("Bearer"))
            #expect(run.lines.contains("  {"))
            #expect(run.lines.contains { $0.hasPrefix("    \"page\": ") })
            #expect(run.lines.contains("    \"items\": ["))
            #expect(run.output.contains("Response  200 OK"))
            #expect(run.output.contains("Transaction 1 of 1: network load, h2"))
            #expect(run.lines.contains { $0.hasPrefix("    Waiting ") && $0.hasSuffix(" ms") })
            #expect(run.output.contains("--full prints all"))
            let full = await logstore("task", url.path, first, "--full")
            #expect(!full.output.contains("--full prints all"))
            #expect(full.lines.count > run.lines.count)

            // JSON body fields and signed URLs are redacted too (the demo's configuration).
            let token = try #require(all.first { ($0["url"] as? String)?.hasSuffix("/oauth/token") == true }?["id"] as? String)
            let tokenRun = await logstore("task", url.path, token)
            #expect(tokenRun.output.contains(#""refresh_token": "<private>""#))
            #expect(tokenRun.output.contains("Set-Cookie: <private>"))
            let upload = try #require(all.first { $0["method"] as? String == "PUT" }?["id"] as? String)
            let uploadRun = await logstore("task", url.path, upload)
            #expect(uploadRun.output.contains("X-Amz-Signature=%3Cprivate%3E"))
            #expect(uploadRun.output.contains("bytes binary (application/pdf)"))

            let png = try #require(all.first { ($0["url"] as? String)?.hasSuffix(".png") == true }?["id"] as? String)
            let pngRun = await logstore("task", url.path, png)
            #expect(pngRun.output.contains("Image: PNG, 200 × 150 pixels"))
            #expect(pngRun.output.contains("bytes binary (image/png)"))

            let timeout = try #require(all.first { ($0["error"] as? [String: Any])?["code"] as? Int == -1001 }?["id"] as? String)
            let timeoutRun = await logstore("task", url.path, timeout)
            #expect(timeoutRun.output.contains("→ failed in "))
            #expect(timeoutRun.output.contains("Error: The request timed out. (NSURLErrorDomain -1001)"))
            #expect(timeoutRun.output.contains("no response"))

            let video = try #require(all.first { ($0["url"] as? String)?.hasSuffix(".mp4") == true }?["id"] as? String)
            #expect(await logstore("task", url.path, video).output.contains("(not stored: over the size limit)"))

            let decoding = try #require(all.first { ($0["contentType"] as? String) == "text/html" && $0["statusCode"] as? Int == 200 }?["id"] as? String)
            let decodingRun = await logstore("task", url.path, decoding)
            #expect(decodingRun.output.contains("Decoding error: dataCorrupted"))
            #expect(decodingRun.lines.contains("  <!DOCTYPE html>"))

            let json = await logstore("task", url.path, first, "--json")
            let details = try jsonObject(json.output)
            #expect((details["summary"] as? [String: Any])?["id"] as? String == first)
            #expect((details["responseBodyKey"] as? String)?.count == 40)
            #expect(((details["request"] as? [String: Any])?["headers"] as? [String: String])?["Authorization"] == "<private>")
            #expect((details["transactions"] as? [Any])?.count == 1)
        }
    }

    @Test func anUnknownTaskIsAFailure() async throws {
        try await withTemporaryStoreURL { url in
            try await makeDemoStore(at: url, count: 20, tasks: 3)
            let id = "6F9619FF-8B86-D011-B42D-00C04FC964FF"
            let run = await logstore("task", url.path, id)
            #expect(run.status == ExitStatus.notFound)
            #expect(run.error.hasPrefix("logstore: no task with id \(id) in \(url.path): 'logstore tasks "))
            #expect(run.output.isEmpty)
            let malformed = await logstore("task", url.path, "1234")
            #expect(malformed.status == 64)
            #expect(malformed.error.contains("invalid task id '1234'"))
        }
    }

    @Test func blobsJSONParsesAndLinkCountsAddUp() async throws {
        try await withTemporaryStoreURL { url in
            try await makeDemoStore(at: url)
            let run = await logstore("blobs", url.path, "--json", "--limit", "100000")
            #expect(run.status == 0, "\(run.error)")
            let blobs = try run.lines.map(jsonObject)
            let info = try jsonObject(await logstore("info", url.path, "--json").output)
            #expect(blobs.count == info["blobCount"] as? Int)
            #expect(blobs.reduce(0) { $0 + ($1["size"] as? Int ?? 0) } == info["blobsSize"] as? Int)

            // Each blob's links are the task bodies stored under its key.
            let store = try await LogStore(storeURL: url, options: [.readonly])
            var references: [String: Int] = [:]
            for task in try await store.tasks(TaskQuery(limit: 1000)).tasks {
                let details = try #require(try await store.task(id: task.id))
                for key in [details.requestBodyKey, details.responseBodyKey].compactMap({ $0 }) { references[key, default: 0] += 1 }
            }
            try await store.close()
            var links: [String: Int] = [:]
            for blob in blobs {
                let key = try #require(blob["key"] as? String)
                #expect(key.count == 40 && key.allSatisfy { $0.isHexDigit && !$0.isUppercase })
                links[key] = blob["linkCount"] as? Int
                let storage = blob["storage"] as? String
                #expect(storage == ((blob["size"] as? Int ?? 0) > 16 * 1024 ? "file" : "inline"))
            }
            #expect(links == references)
            #expect(links.values.contains { $0 > 1 }, "the demo's repeated bodies are deduplicated")
            #expect(blobs.contains { $0["storage"] as? String == "file" })

            let human = await logstore("blobs", url.path, "--limit", "3")
            #expect(human.lines.first?.hasPrefix("KEY ") == true)
            #expect(human.lines.count == 5)
            #expect(human.lines[1].hasSuffix("  file"))
            #expect(human.lines[1].contains("×"))
            #expect(human.lines.last?.hasPrefix("Showing 3 of ") == true)
            #expect(human.error.isEmpty)
        }
    }

    @Test func aStoreWithoutTasksListsNone() async throws {
        // Schema 1, from before network tasks: read-only, so it is not migrated.
        try await withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent("store-v1.logstore")
            try FileManager.default.copyItem(at: FixtureTests.fixtures.appendingPathComponent("store-v1.logstore"), to: copy)
            #expect(await logstore("tasks", copy.path).output == "No tasks match.\n")
            #expect(await logstore("blobs", copy.path).output == "No blobs.\n")
            #expect(await logstore("blobs", copy.path, "--json").output.isEmpty)
            #expect(await logstore("task", copy.path, UUID().uuidString).status == ExitStatus.notFound)
            let store = try await LogStore(storeURL: copy, options: [.readonly])
            #expect(try await store.blobs().isEmpty)
            try await store.close()
        }
    }

    // MARK: sweep

    /// A minute after the demo's last message: with no age left, every message is before it.
    static let afterTheDemo = CLITests.now.addingTimeInterval(60)

    @Test func sweepWithNoAgeLeftRemovesEverything() async throws {
        try await withTemporaryStoreURL { url in
            try await makeDemoStore(at: url)
            let run = await logstore("sweep", url.path, "--max-age", "0s", now: Self.afterTheDemo)
            #expect(run.status == 0, "\(run.error)")
            #expect(run.lines.first == "Swept \(url.path)")
            let removed = try #require(run.lines.first { $0.hasPrefix("Removed:") })
            #expect(removed.contains(" 300 messages, 60 tasks, 0 bodies dropped, "))
            #expect(removed.hasSuffix(" blobs, 0 orphan files"))
            #expect(run.lines.contains { $0.hasPrefix("Size:") && $0.contains(" → ") && $0.hasSuffix(" reclaimed)") })
            #expect(run.lines.contains { $0.hasPrefix("Limits:") && $0.hasSuffix("older than 0s, size 256 MB (trimmed from 85%)") })

            let info = try jsonObject(await logstore("info", url.path, "--json").output)
            #expect(info["messageCount"] as? Int == 0)
            #expect(info["taskCount"] as? Int == 0)
            #expect(info["blobCount"] as? Int == 0)
        }
    }

    @Test func sweepJSONIsOneObjectWithTheReportsKeys() async throws {
        try await withTemporaryStoreURL { url in
            try await makeDemoStore(at: url)
            // The demo spans the 3 hours before `now`: an hour's age keeps about a third.
            let run = await logstore("sweep", url.path, "--max-age", "1h", "--size-limit", "64MB", "--json")
            #expect(run.status == 0, "\(run.error)")
            #expect(run.lines.count == 1)
            let report = try jsonObject(run.output)
            #expect(Set(report.keys) == [
                "date", "trigger", "duration", "removedMessages", "removedTasks", "droppedBodies", "removedBlobs",
                "removedOrphanFiles", "sizeBefore", "sizeAfter", "guardedMessages", "guardedTasks", "retentionGuardAuthors",
                "reclaimedBytes",
            ])
            #expect(report["trigger"] as? String == "manual")
            #expect(report["date"] as? String == Format.timestamp(Self.now))
            let removed = try #require(report["removedMessages"] as? Int)
            #expect((1..<300).contains(removed))
            let before = try #require(report["sizeBefore"] as? Int)
            let after = try #require(report["sizeAfter"] as? Int)
            #expect(report["reclaimedBytes"] as? Int == max(0, before - after))

            let info = try jsonObject(await logstore("info", url.path, "--json").output)
            #expect(info["messageCount"] as? Int == 300 - removed)
        }
    }

    @Test func sweepOverTheSizeLimitTrimsAndSaysWhenStillOver() async throws {
        try await withTemporaryStoreURL { url in
            try await makeDemoStore(at: url)
            let size = try #require(try jsonObject(await logstore("info", url.path, "--json").output)["totalStoreSize"] as? Int)
            // Just over the limit: one trim of about 30 % of the messages, and nothing more to say.
            let run = await logstore("sweep", url.path, "--size-limit", String(size * 8 / 10), "--json")
            #expect(run.status == 0, "\(run.error)")
            let report = try jsonObject(run.output)
            let removed = try #require(report["removedMessages"] as? Int)
            #expect((60..<150).contains(removed), "\(removed)")

            // Far below what an empty store takes: everything goes, and the tool says it is still over.
            let again = await logstore("sweep", url.path, "--size-limit", "1KiB")
            #expect(again.status == 0, "\(again.error)")
            #expect(again.lines.last?.hasPrefix("Still above the size limit: ") == true)
        }
    }

    @Test func sweepRejectsBadLimitsBeforeOpeningTheStore() async throws {
        try await withTemporaryStoreURL { url in
            try await makeDemoStore(at: url)
            for (option, value) in [("size-limit", "12 parsecs"), ("size-limit", "-5MB"), ("size-limit", "1e9"), ("max-age", "soon")] {
                let run = await logstore("sweep", url.path, "--\(option)", value)
                #expect(run.status == 64, "\(value)")
                #expect(run.error.hasPrefix("logstore: invalid value '\(value)' for --\(option): expected "), "\(run.error)")
                #expect(run.output.isEmpty)
            }
            // Nothing ran: the store records no sweep.
            let info = try jsonObject(await logstore("info", url.path, "--json").output)
            #expect(info["lastSweep"] == nil)
            #expect(info["lastSweepDate"] == nil)
        }
    }

    @Test func infoShowsTheLastSweep() async throws {
        try await withTemporaryStoreURL { url in
            try await makeDemoStore(at: url)
            let never = await logstore("info", url.path)
            #expect(never.lines.contains { $0.hasPrefix("Last sweep:") && $0.hasSuffix(" never") })

            #expect(await logstore("sweep", url.path, "--max-age", "0s", now: Self.afterTheDemo).status == 0)
            let run = await logstore("info", url.path)
            let index = try #require(run.lines.firstIndex { $0.hasPrefix("Last sweep:") })
            #expect(run.lines[index].hasSuffix(" \(Format.timestamp(Self.afterTheDemo))"))
            // The summary continues in the value column.
            let valueColumn = run.lines[index].count - Format.timestamp(Self.afterTheDemo).count
            let summary = run.lines[index + 1]
            #expect(summary.prefix(valueColumn).allSatisfy { $0 == " " })
            #expect(summary.dropFirst(valueColumn).hasPrefix("manual: removed 300 messages, 60 tasks, "))
            #expect(summary.hasSuffix(" reclaimed)"))
            #expect(!summary.contains("orphan"))

            let info = try jsonObject(await logstore("info", url.path, "--json").output)
            let last = try #require(info["lastSweep"] as? [String: Any])
            #expect(last["removedMessages"] as? Int == 300)
            #expect(last["trigger"] as? String == "manual")
            #expect(last["date"] as? String == Format.timestamp(Self.afterTheDemo))
            #expect(info["lastSweepDate"] as? String == Format.timestamp(Self.afterTheDemo))
        }
    }

    // MARK: errors and help

    @Test func aMissingStoreIsReportedAndNotCreated() async throws {
        try await withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("missing.logstore")
            for command in ["info", "messages", "sessions", "tasks", "blobs", "sweep"] {
                let run = await logstore(command, url.path)
                #expect(run.status == ExitStatus.notFound)
                #expect(run.error.contains("logstore demo"))
                #expect(run.error.contains(url.path))
                #expect(run.error.split(separator: "\n").count == 1)
                #expect(run.output.isEmpty)
            }
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
    }

    @Test func aGarbageManifestIsReportedClearly() async throws {
        try await withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("broken.logstore")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data("not json at all".utf8).write(to: url.appendingPathComponent("manifest.json"))
            for command in ["info", "messages", "sessions", "demo"] {
                let run = await logstore(command, url.path)
                #expect(run.status == 1, "\(command)")
                #expect(run.error.contains(url.path))
                #expect(run.error.contains("manifest.json"))
                #expect(run.error.split(separator: "\n").count == 1)
            }
        }
    }

    @Test func usageErrorsExitWith64() async throws {
        try await withTemporaryStoreURL { url in
            let cases: [[String]] = [
                [], ["frobnicate"], ["--bogus"], ["info", url.path, "--bogus"], ["info"], ["info", url.path, "extra"],
                ["messages", url.path, "--limit"], ["info", url.path, "--json=yes"], ["demo", url.path, "--count", "-5"],
                ["sessions", url.path, "-x"], ["help", "frobnicate"], ["tasks", url.path, "--status", "7xx"],
                ["tasks", url.path, "--state", "done"], ["tasks", url.path, "--method", "G E T"], ["task", url.path],
                ["task", url.path, "not-a-uuid"], ["blobs", url.path, "--limit", "0"], ["demo", url.path, "--tasks", "-1"],
                ["sweep", url.path, "--size-limit", "lots"], ["sweep", url.path, "--max-age", "-1d"], ["sweep"],
            ]
            for arguments in cases {
                var output = ""
                var error = ""
                let status = await LogStoreCommand.run(arguments, output: &output, error: &error)
                #expect(status == 64, "\(arguments)")
                #expect(error.hasPrefix("logstore: ") || arguments.isEmpty, "\(arguments)")
            }
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
    }

    /// Every command's name, in `--help`'s order.
    static let commandNames: [String] = LogStoreCommand.commands.map { $0.spec.name }

    @Test(arguments: CLITests.commandNames)
    func everyCommandHasHelp(_ command: String) async throws {
        let run = await logstore(command, "--help")
        #expect(run.status == 0)
        #expect(run.output.contains("Usage: logstore \(command) <\(command == "open" ? "archive" : "store")>"))
        #expect(run.output.contains("--help"))
        #expect(run.error.isEmpty)
        let viaHelp = await logstore("help", command)
        #expect(viaHelp.output == run.output)
    }

    @Test func topLevelHelpListsTheCommands() async {
        let run = await logstore("--help")
        #expect(run.status == 0)
        for command in Self.commandNames {
            #expect(run.output.contains("\n  \(command) "))
        }
    }

    // MARK: pieces

    @Test func levelsParseAsThresholdsAndRanges() throws {
        #expect(try ValueParsers.levels("warning") == .warning ... .critical)
        #expect(try ValueParsers.levels("WARN") == .warning ... .critical)
        #expect(try ValueParsers.levels("info...error") == .info ... .error)
        #expect(throws: UsageError.self) { try ValueParsers.levels("error...info") }
        #expect(throws: UsageError.self) { try ValueParsers.levels("info..") }
    }

    @Test func timesParseAsISOOrAgo() throws {
        let now = Self.now
        #expect(try ValueParsers.date("15m", option: "since", now: now) == now.addingTimeInterval(-900))
        #expect(try ValueParsers.date("2h", option: "since", now: now) == now.addingTimeInterval(-7200))
        #expect(try ValueParsers.date("3d", option: "since", now: now) == now.addingTimeInterval(-3 * 86_400))
        #expect(try ValueParsers.date("2025-06-15T15:06:40Z", option: "since", now: now) == now)
        #expect(try ValueParsers.date("2025-06-15T15:06:40.500Z", option: "since", now: now) == now.addingTimeInterval(0.5))
        #expect(try ValueParsers.date("2025-06-15T17:06:40+02:00", option: "since", now: now) == now)
        #expect(try ValueParsers.date("2025-06-15", option: "since", now: now) == Date(timeIntervalSince1970: 1_749_945_600))
        #expect(throws: UsageError.self) { try ValueParsers.date("m15", option: "since", now: now) }
    }

    @Test func agesParseWithUnitsOrAsSeconds() throws {
        func age(_ text: String) throws -> Duration { try ValueParsers.age(text, option: "max-age") }
        #expect(try age("30s") == .seconds(30))
        #expect(try age("15m") == .seconds(900))
        #expect(try age("12h") == .seconds(43_200))
        #expect(try age("14d") == .seconds(14 * 86_400))
        #expect(try age("1.5h") == .seconds(5400))
        #expect(try age("90") == .seconds(90))
        #expect(try age("0s") == .zero)
        for bad in ["", "s", "-1s", "1y", "soon", "1e3", "1 d", "36501d", String(repeating: "9", count: 400) + "d"] {
            #expect(throws: UsageError.self, "\(bad)") { try age(bad) }
        }
        #expect(SweepFormat.age(.seconds(14 * 86_400)) == "14d")
        #expect(SweepFormat.age(.seconds(5400)) == "90m")
        #expect(SweepFormat.age(.seconds(61)) == "61s")
        #expect(SweepFormat.age(.zero) == "0s")
    }

    @Test func sizesParseInDecimalAndBinaryUnits() throws {
        func size(_ text: String) throws -> Int64 { try ValueParsers.byteSize(text, option: "size-limit") }
        #expect(try size("500000") == 500_000)
        #expect(try size("500_000") == 500_000)
        #expect(try size("64MB") == 64_000_000)
        #expect(try size("64mb") == 64_000_000)
        #expect(try size("1.5GB") == 1_500_000_000)
        #expect(try size("512KiB") == 524_288)
        #expect(try size("2 GiB") == 2_147_483_648)
        #expect(try size("1TB") == 1_000_000_000_000)
        #expect(try size("100B") == 100)
        #expect(try size("0") == 0)
        #expect(try size("9223372036854775807") == Int64.max)
        for bad in ["", "MB", "-5", "5 parsecs", "1e9", "12M", "10EB", "8EiB", "99999999999999999999", "1..5GB"] {
            #expect(throws: UsageError.self, "\(bad)") { try size(bad) }
        }
    }

    @Test func timestampsAreISOWithMilliseconds() {
        #expect(Format.timestamp(Self.now) == "2025-06-15T15:06:40.000Z")
        #expect(Format.timestamp(Self.now.addingTimeInterval(0.9996)) == "2025-06-15T15:06:41.000Z")
        #expect(Format.timestamp(Date(timeIntervalSince1970: -0.25)) == "1969-12-31T23:59:59.750Z")
    }

    @Test func sizesAndCountsReadWell() {
        #expect(Format.bytes(999) == "999 bytes")
        #expect(Format.bytes(12_345) == "12.3 KB")
        #expect(Format.bytes(20_660_224) == "20.7 MB")
        #expect(Format.count(1_234_567) == "1,234,567")
        #expect(Format.count(-1000) == "-1,000")
    }

    @Test func controlCharactersAreEscaped() {
        #expect(Format.escaped("a\u{1B}[2Jb\tc\n") == "a\\u{1b}[2Jb\\tc\\n")
        #expect(Format.escaped("plain ünïcode") == "plain ünïcode")
    }

    @Test func statusesParseAsCodesClassesAndRanges() throws {
        #expect(try ValueParsers.statusCodes("200") == 200...200)
        #expect(try ValueParsers.statusCodes("4xx") == 400...499)
        #expect(try ValueParsers.statusCodes("5XX") == 500...599)
        #expect(try ValueParsers.statusCodes("500-504") == 500...504)
        for bad in ["600", "4x", "6xx", "abc", "599-500", "20", "200-", "-200", "1000"] {
            #expect(throws: UsageError.self, "\(bad)") { try ValueParsers.statusCodes(bad) }
        }
        #expect(try ValueParsers.taskState("Failure") == .failure)
        #expect(throws: UsageError.self) { try ValueParsers.taskState("failed") }
        #expect(try ValueParsers.method("post") == "POST")
    }

    @Test func jsonIsReindentedKeepingItsOrder() {
        let body = Data(#"{"b":1,"a":[1, 2.50,{"c":"x, {y}: \"z\""}],"e":{},"f":[ ],"g":null}"#.utf8)
        let (lines, truncated) = JSONPretty.lines(body, limit: nil)
        #expect(!truncated)
        #expect(lines == [
            "{", #"  "b": 1,"#, #"  "a": ["#, "    1,", "    2.50,", "    {", #"      "c": "x, {y}: \"z\"""#, "    }", "  ],",
            #"  "e": {},"#, #"  "f": [],"#, #"  "g": null"#, "}",
        ])
        #expect(JSONPretty.lines(body, limit: 3) == (["{", #"  "b": 1,"#, #"  "a": ["#], true))
        #expect(TaskFormat.isJSON(body, contentType: "application/problem+json; charset=utf-8"))
        #expect(TaskFormat.isJSON(body, contentType: nil))
        #expect(!TaskFormat.isJSON(body, contentType: "text/html"))
        #expect(!TaskFormat.isJSON(Data("{not json".utf8), contentType: "application/json"))
    }

    @Test func demoImagesAreWhatTheyClaim() throws {
        var random = DemoRandom(seed: 1)
        let png = DemoImages.png(width: 200, height: 150, &random)
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(png.count > 200 * 150)
        let gif = DemoImages.gif(width: 32, height: 32)
        #expect(gif.prefix(6) == Data("GIF89a".utf8))
        #expect(gif.last == 0x3B)
        let jpeg = DemoImages.jpeg(width: 800, height: 600)
        #expect(jpeg.prefix(2) == Data([0xFF, 0xD8]))
        #expect(jpeg.suffix(2) == Data([0xFF, 0xD9]))
        // CRC-32 and Adler-32 check values of "123456789".
        #expect(DemoImages.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(DemoImages.adler32(Array("123456789".utf8)) == 0x091E_01DE)
    }

    @Test func theDemosRenderingsAreTheCommands() {
        // The same seed must keep writing the same texts and bodies now that the demo renders its own.
        for value in [0, 1, 999, 1000, 12_345, 99_999, 100_000, 999_499, 999_500, 20_660_224, 4_000_000, Int(Int32.max)] {
            #expect(DemoFormat.bytes(Int64(value)) == Format.bytes(Int64(value)), "\(value)")
            #expect(DemoFormat.count(value) == Format.count(value), "\(value)")
            #expect(DemoFormat.count(-value) == Format.count(-value), "\(value)")
        }
        for value in [0.2, 1.25, 39.99, 12.05] {
            #expect(DemoFormat.decimal(value, places: 1) == Format.decimal(value, places: 1))
        }
        for status in [404, 409, 422, 500, 503] {
            #expect(DemoFormat.reason(status) == HTTPStatus.reason(status))
        }
        for seconds in [0, 1_750_000_000, 1_749_945_599.9996, 1_749_945_599.9994, -0.25, 86_399.9999] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(DemoFormat.day(date) == String(Format.timestamp(date).prefix(10)), "\(seconds)")
        }
    }

    @Test func theContinuationReplacesTheCursor() {
        let line = MessagesCommand.continuation(
            ["my store", "--cursor", "m9", "--level", "warning", "--cursor=m8"], cursor: MessageQuery.Cursor(lastID: 5))
        #expect(line == "logstore messages 'my store' --level warning --cursor m5")
    }
}
