import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// The `logstore` command itself: help, usage errors, and how a missing or broken store is
/// reported, for every command.
@Suite struct LogStoreCommandTests: CLITestCase {
    /// Every command's name, in `--help`'s order.
    static let commandNames: [String] = LogStoreCommand.commands.map { $0.spec.name }

    @Test(arguments: LogStoreCommandTests.commandNames)
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
}
