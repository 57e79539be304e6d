import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore info` says what each number is, and maintenance from the shell leaves the
/// sessions alone.
@Suite struct InfoCommandTests {
    func logstore(_ arguments: String...) async -> (status: Int32, output: String, error: String) {
        var output = ""
        var error = ""
        let status = await LogStoreCommand.run(
            arguments, output: &output, error: &error, environment: CommandEnvironment(now: CLITests.now))
        return (status, output, error)
    }

    @Test func aSweepFromTheShellAddsNoSession() async throws {
        try await withTemporaryStoreURL { url in
            try await CLITests().makeStore(at: url)
            let before = try JSONSerialization.jsonObject(with: Data(await logstore("info", url.path, "--json").output.utf8))
            #expect(await logstore("sweep", url.path).status == 0)
            #expect(await logstore("sweep", url.path, "--max-age", "1d").status == 0)
            let after = try JSONSerialization.jsonObject(with: Data(await logstore("info", url.path, "--json").output.utf8))
            #expect((before as? [String: Any])?["sessionCount"] as? Int == 1)
            #expect((after as? [String: Any])?["sessionCount"] as? Int == 1)
        }
    }

    @Test func aMaintenanceStoreRecordsItsSessionOnlyWhenItLogs() async throws {
        try await withTemporaryStoreURL { url in
            try await CLITests().makeStore(at: url)
            var configuration = LogStore.Configuration()
            configuration.recordsSessionOnOpen = false
            let store = try await LogStore(storeURL: url, configuration: configuration)
            #expect(try await store.info().sessionCount == 1)
            store.storeMessage(label: "tool", level: .info, message: "logged after all")
            try await store.flush()
            let sessions = try await store.sessions()
            try await store.close()
            #expect(sessions.count == 2)
            let reader = try await LogStore(storeURL: url, options: [.readonly])
            let page = try await reader.messages(MessageQuery(labels: ["tool"]))
            try await reader.close()
            #expect(page.messages.first?.sessionID == sessions.last?.id)
        }
    }

    @Test func sizesAddUpAndVersionsSayWhatTheyAre() async throws {
        try await withTemporaryStoreURL { url in
            _ = await logstore("demo", url.path, "--count", "200", "--tasks", "30", "--seed", "3")
            let run = await logstore("info", url.path)
            #expect(run.status == 0)
            let lines = run.output.split(separator: "\n").map(String.init)
            for label in ["Database size:", "Body files size:", "Total size:", "Store format:", "SQL schema:"] {
                #expect(lines.contains { $0.hasPrefix(label) }, "\(label)")
            }
            #expect(!lines.contains { $0.hasPrefix("Store version:") || $0.hasPrefix("Schema version:") })
            let json = try #require(JSONSerialization.jsonObject(with: Data(await logstore("info", url.path, "--json").output.utf8)) as? [String: Any])
            let database = try #require(json["databaseSize"] as? Int)
            let files = try #require(json["blobFilesSize"] as? Int)
            #expect(json["totalStoreSize"] as? Int == database + files)
        }
    }
}
