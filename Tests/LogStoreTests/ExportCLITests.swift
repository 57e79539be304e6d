import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore export`, run in-process through ``LogStoreCommand/run(_:output:error:environment:)``
/// on the fixed export store.
@Suite struct ExportCLITests {
    func logstore(_ arguments: [String], progress: Recorder<String>? = nil) async -> CLIRun {
        await CLIRun.run(arguments, now: ExportFixture.at(60), progress: progress)
    }

    /// The fixed store, closed (the command opens it read-only), and a directory for exports.
    func withFixture(_ body: (URL, URL) async throws -> Void) async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { try await ExportFixture.fill($0) }
            let exports = url.deletingLastPathComponent().appendingPathComponent("exports", isDirectory: true)
            try FileManager.default.createDirectory(at: exports, withIntermediateDirectories: true)
            try await body(url, exports)
        }
    }

    @Test func theExtensionChoosesTheFormatAndASummaryEnds() async throws {
        try await withFixture { store, exports in
            let text = exports.appendingPathComponent("all.log").path
            let run = await logstore(["export", store.path, "-o", text])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.hasPrefix("Exported 4 messages, 2 tasks (1 session) to \(text) (text): "))
            #expect(run.output.hasSuffix(" s\n") && run.output.split(separator: "\n").count == 1)
            #expect(try String(contentsOfFile: text, encoding: .utf8).contains("WARNING  [http] slow response"))

            let jsonl = exports.appendingPathComponent("all.jsonl").path
            #expect(await logstore(["export", store.path, "--output", jsonl]).status == 0)
            let first = try #require(try String(contentsOfFile: jsonl, encoding: .utf8).split(separator: "\n").first)
            #expect(first.hasPrefix(#"{"type":"message","id":1,"#))
        }
    }

    @Test func filtersSelectMessagesAndTasks() async throws {
        try await withFixture { store, exports in
            let path = exports.appendingPathComponent("errors.txt").path
            let run = await logstore([
                "export", store.path, "-o", path, "--format", "ndjson", "--level", "warning", "--label", "http",
                "--until", "2025-06-15T15:06:42.500Z", "--grep", "slow",
            ])
            #expect(run.status == 0, "\(run.error)")
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            // --format wins over the extension; the message filters leave the tasks alone, the time
            // filter does not: the task at 15:06:43 is out.
            #expect(lines.count == 2)
            #expect(lines[0].contains(#""text":"slow response""#))
            #expect(lines[1].contains(ExportFixture.okTaskID.uuidString))

            let since = exports.appendingPathComponent("since.ndjson").path
            #expect(await logstore(["export", store.path, "-o", since, "--since", "58s", "--no-tasks"]).status == 0)
            let recent = try String(contentsOfFile: since, encoding: .utf8).split(separator: "\n")
            #expect(recent.count == 1 && recent[0].contains(#""id":4,"#))
        }
    }

    @Test func detailsAndSessionReachTheText() async throws {
        try await withFixture { store, exports in
            let session = try await withStore(at: store, options: [.readonly]) { try await $0.sessions()[0].id }
            let path = exports.appendingPathComponent("tasks.log").path
            let run = await logstore([
                "export", store.path, "-o", path, "--details", "--no-messages", "--session", session.uuidString,
            ])
            #expect(run.status == 0, "\(run.error)")
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains("\n    > Accept: application/json\n"))
            #expect(!text.contains("INFO"))
            let other = await logstore(["export", store.path, "-o", exports.appendingPathComponent("none.log").path,
                                        "--session", UUID().uuidString])
            #expect(other.status == 0 && other.output.hasPrefix("Exported 0 messages, 0 tasks (0 sessions)"))
        }
    }

    @Test func aProgressBarIsDrawnAndErasedWhenAsked() async throws {
        try await withFixture { store, exports in
            let progress = Recorder("")
            let run = await logstore(["export", store.path, "-o", exports.appendingPathComponent("p.ndjson").path],
                                     progress: progress)
            #expect(run.status == 0, "\(run.error)")
            let drawn = progress.current
            #expect(drawn.hasPrefix("\r["))
            #expect(drawn.contains(" of 6 rows  messages"))
            #expect(drawn.hasSuffix("\r\u{1B}[K"))
            #expect(!run.error.contains("\r"))
            // Without a progress output (stderr piped), nothing but the summary.
            let quiet = await logstore(["export", store.path, "-o", exports.appendingPathComponent("q.ndjson").path])
            #expect(quiet.error.isEmpty)
        }
    }

    @Test func failuresAndBadValues() async throws {
        try await withFixture { store, exports in
            let taken = exports.appendingPathComponent("taken.log")
            try Data("keep".utf8).write(to: taken)
            let refused = await logstore(["export", store.path, "-o", taken.path])
            #expect(refused.status == 1)
            #expect(refused.error.hasPrefix("logstore: ") && refused.error.contains("taken.log"))
            #expect(try String(contentsOf: taken, encoding: .utf8) == "keep")

            let missing = await logstore(["export", store.path, "-o", exports.path + "/no/such/dir/x.log"])
            #expect(missing.status == ExitStatus.notFound)

            // An archive is written, and opens again.
            let archive = await logstore(["export", store.path, "-o", exports.appendingPathComponent("a.lsarchive").path])
            #expect(archive.status == 0)
            #expect(await logstore(["open", exports.appendingPathComponent("a.lsarchive").path]).status == 0)

            #expect(await logstore(["export", store.path]).status == 64)
            #expect(await logstore(["export", store.path, "-o", "x.log", "--format", "pdf"]).error.contains("--format"))
            #expect(await logstore(["export", store.path, "-o", "x.log", "--level", "loud"]).status == 64)
            #expect(await logstore(["export", store.path, "-o", "x.log", "--session", "nope"]).status == 64)
            let listing = try directoryListing(exports)
            #expect(listing == ["a.lsarchive", "taken.log"])
        }
    }

    @Test func aMissingOutputDirectoryIsNamedAsOneNotAsAStore() async throws {
        try await withFixture { store, exports in
            let directory = exports.appendingPathComponent("nodir")
            let run = await logstore(["export", store.path, "-o", directory.appendingPathComponent("a.html").path])
            #expect(run.status == ExitStatus.notFound)
            #expect(run.error == "logstore: no directory \(directory.path) for the output file — create it first "
                + "(mkdir -p \(directory.path))\n", "\(run.error)")
            #expect(!run.error.lowercased().contains("no store"))
            let listing = try directoryListing(exports)
            #expect(listing.isEmpty)
            // A missing path the library reports is called a store only when it is the store named.
            let other = Failure(LogStoreError.fileDoesntExist(directory), storePath: store.path)
            #expect(other.message == "\(directory.path) does not exist")
            #expect(other.status == ExitStatus.notFound)
            let named = Failure(LogStoreError.fileDoesntExist(store), storePath: store.path)
            #expect(named.message.hasPrefix("no store or archive at \(store.path)"))
        }
    }

    @Test func theFormatFollowsTheExtension() throws {
        let cases: [(String, ExportFormat)] = [
            ("a.lsarchive", .archive), ("a.log", .text), ("a.TXT", .text), ("a.ndjson", .ndjson), ("a.jsonl", .ndjson),
            ("a.html", .html), ("a.har", .har), ("a.bin", .archive), ("noextension", .archive),
        ]
        for (name, format) in cases {
            #expect(try ExportCommand.format(ParsedArguments(for: ExportCommand.spec), url: URL(fileURLWithPath: name)) == format, "\(name)")
        }
    }
}
