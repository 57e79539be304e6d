import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore info`: its fields and JSON, what each number is, the last sweep, and that
/// maintenance from the shell leaves the sessions alone.
@Suite struct InfoCLITests: CLITestCase {
    @Test func infoJSONHasTheRequiredKeys() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
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
            try await CLIFixtures.makeStore(at: url)
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

    @Test func infoShowsTheLastSweep() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url)
            let never = await logstore("info", url.path)
            #expect(never.lines.contains { $0.hasPrefix("Last sweep:") && $0.hasSuffix(" never") })

            #expect(await logstore("sweep", url.path, "--max-age", "0s", now: CLIFixtures.afterTheDemo).status == 0)
            let run = await logstore("info", url.path)
            let index = try #require(run.lines.firstIndex { $0.hasPrefix("Last sweep:") })
            #expect(run.lines[index].hasSuffix(" \(Format.timestamp(CLIFixtures.afterTheDemo))"))
            // The summary continues in the value column.
            let valueColumn = run.lines[index].count - Format.timestamp(CLIFixtures.afterTheDemo).count
            let summary = run.lines[index + 1]
            #expect(summary.prefix(valueColumn).allSatisfy { $0 == " " })
            #expect(summary.dropFirst(valueColumn).hasPrefix("manual: removed 300 messages, 60 tasks, "))
            #expect(summary.hasSuffix(" reclaimed)"))
            #expect(!summary.contains("orphan"))

            let info = try jsonObject(await logstore("info", url.path, "--json").output)
            let last = try #require(info["lastSweep"] as? [String: Any])
            #expect(last["removedMessages"] as? Int == 300)
            #expect(last["trigger"] as? String == "manual")
            #expect(last["date"] as? String == Format.timestamp(CLIFixtures.afterTheDemo))
            #expect(info["lastSweepDate"] as? String == Format.timestamp(CLIFixtures.afterTheDemo))
        }
    }

    @Test func aSweepFromTheShellAddsNoSession() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
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
            try await CLIFixtures.makeStore(at: url)
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
