import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore tasks`: its filters, JSON lines, the table and its pages. (More filters:
/// TaskQueryCLITests.)
@Suite struct TasksCLITests: CLITestCase {
    @Test func tasksJSONLinesParseAndFiltersWork() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url)
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
            try await CLIFixtures.makeDemoStore(at: url)
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
                environment: CommandEnvironment(usesColors: true, now: CLIFixtures.now))
            #expect(output.contains("\u{1B}[1;31m5"))
            let none = await logstore("tasks", url.path, "--host", "nowhere.example")
            #expect(none.output == "No tasks match.\n")
        }
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
}
