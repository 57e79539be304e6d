import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// Picking a task without a pipeline: `task <store> --latest` with the filters of `tasks`,
/// `tasks --ids`, and paging hints that stay off a pipeline.
@Suite struct TaskPickingCLITests: CLITestCase {
    /// Runs `logstore` as with its standard output on a terminal, or piped.
    func logstore(_ arguments: [String], outputIsTerminal: Bool) async -> CLIRun {
        var output = ""
        var error = ""
        let environment = CommandEnvironment(now: CLIFixtures.now, outputIsTerminal: outputIsTerminal)
        let status = await LogStoreCommand.run(arguments, output: &output, error: &error, environment: environment)
        return CLIRun(status: status, output: output, error: error)
    }

    @Test func idsPrintOnlyTheIdsOfThePage() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url)
            let run = await logstore("tasks", url.path, "--errors", "--ids", "--limit", "3")
            #expect(run.status == 0, "\(run.error)")
            #expect(run.lines.count == 3)
            #expect(run.lines.allSatisfy { UUID(uuidString: $0) != nil }, "\(run.output)")
            // The same tasks, in the same order, as the JSON of the same page.
            let json = await logstore("tasks", url.path, "--errors", "--json", "--limit", "3")
            #expect(try json.lines.map { try jsonObject($0)["id"] as? String } == run.lines)
            #expect(await logstore("tasks", url.path, "--ids", "--json").status == ExitStatus.usage)
        }
    }

    @Test func latestShowsTheNewestTaskTheFiltersMatch() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url)
            let newestFailure = try #require(await logstore("tasks", url.path, "--errors", "--ids", "--limit", "1").lines.first)
            let newest = try #require(await logstore("tasks", url.path, "--ids", "--limit", "1").lines.first)
            #expect(newest != newestFailure)

            let picked = await logstore("task", url.path, "--latest", "--errors", "--json")
            #expect(picked.status == 0, "\(picked.error)")
            let summary = try #require(try jsonObject(picked.output)["summary"] as? [String: Any])
            #expect(summary["id"] as? String == newestFailure)
            #expect(summary["state"] as? String == "failure")

            // Without filters, the newest task of all; the human view names it.
            let plain = await logstore("task", url.path, "--latest")
            #expect(plain.status == 0, "\(plain.error)")
            #expect(plain.output.contains("Task:") && plain.output.contains(newest))

            // The filters of `tasks`: a status class, a host.
            let serverError = await logstore("task", url.path, "--latest", "--status", "5xx", "--json")
            let status = try #require(try jsonObject(serverError.output)["summary"] as? [String: Any])["statusCode"] as? Int
            #expect((500...599).contains(status ?? 0))
        }
    }

    @Test func latestRefusesWhatCannotPickATask() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url)
            let none = await logstore("task", url.path, "--latest", "--host", "nowhere.example", "--errors")
            #expect(none.status == ExitStatus.notFound)
            #expect(none.error == "logstore: no task in \(url.path) matches the filters (--host, --errors)\n", "\(none.error)")

            let both = await logstore("task", url.path, "--latest", UUID().uuidString)
            #expect(both.status == ExitStatus.usage)
            #expect(both.error.hasPrefix("logstore: --latest picks the task: give no <task-id> with it"))

            let filterWithID = await logstore("task", url.path, UUID().uuidString, "--errors")
            #expect(filterWithID.status == ExitStatus.usage)
            #expect(filterWithID.error.hasPrefix("logstore: --errors filters tasks for --latest"))

            let neither = await logstore("task", url.path)
            #expect(neither.status == ExitStatus.usage)
            #expect(neither.error.hasPrefix("logstore: missing <task-id>: give a task's id, or --latest"))
            #expect(neither.error.contains("Usage: logstore task <store> [<task-id>] [options]"))
        }
    }

    @Test func pagingHintsStayOffAPipeline() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url)
            for format in ["--json", "--ids"] {
                let piped = await logstore(["tasks", url.path, format, "--limit", "1"], outputIsTerminal: false)
                #expect(piped.status == 0 && piped.lines.count == 1)
                #expect(piped.error.isEmpty, "\(format): \(piped.error)")
                let watched = await logstore(["tasks", url.path, format, "--limit", "1"], outputIsTerminal: true)
                #expect(watched.error.hasPrefix("logstore: more tasks: continue with --cursor t"), "\(format): \(watched.error)")
            }
            let messages = await logstore(["messages", url.path, "--json", "--limit", "1"], outputIsTerminal: false)
            #expect(messages.status == 0 && messages.lines.count == 1 && messages.error.isEmpty, "\(messages.error)")
            let watched = await logstore(["messages", url.path, "--json", "--limit", "1"], outputIsTerminal: true)
            #expect(watched.error.hasPrefix("logstore: more messages: continue with --cursor m"))

            // A script pages with the last line's row id.
            let first = await logstore(["tasks", url.path, "--json", "--limit", "2"], outputIsTerminal: false)
            let last = try #require(first.lines.last)
            let rowID = try #require(try jsonObject(last)["rowID"] as? Int)
            let next = await logstore(["tasks", url.path, "--json", "--limit", "2", "--cursor", "t\(rowID)"], outputIsTerminal: false)
            let all = await logstore(["tasks", url.path, "--ids", "--limit", "4"], outputIsTerminal: false)
            #expect(try next.lines.map { try jsonObject($0)["id"] as? String } == Array(all.lines.suffix(2)))
        }
    }
}
