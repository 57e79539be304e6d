import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore open`, and archives in place of stores for the reading commands.
@Suite("Archive on the command line")
struct ArchiveCLITests {
    static func fixture() throws -> URL {
        FixtureTests.fixtures.appendingPathComponent("archive-v1.lsarchive")
    }

    func runCLI(_ arguments: [String]) async -> CLIRun {
        var output = ""
        var error = ""
        let status = await LogStoreCommand.run(
            arguments, output: &output, error: &error, environment: CommandEnvironment(now: CLIFixtures.now))
        return CLIRun(status: status, output: output, error: error)
    }

    @Test func openPrintsTheInfoRecord() async throws {
        let archive = try Self.fixture().path
        let result = await runCLI(["open", archive])
        #expect(result.status == 0)
        #expect(result.output.contains("Store ID:"))
        #expect(result.output.contains("Messages:"))
        #expect(result.output.contains("Archive format:"))
        let json = await runCLI(["open", archive, "--json"])
        #expect(json.status == 0)
        let decoded = try archiveDecoder().decode(ArchiveInfo.self, from: Data(json.output.utf8))
        #expect(decoded.taskCount == 40)
    }

    @Test func readingCommandsTakeAnArchive() async throws {
        let archive = try Self.fixture().path
        for command in [["info"], ["messages", "--limit", "3"], ["tasks", "--limit", "3"], ["blobs"], ["sessions"],
                        ["summary"], ["tail", "-n", "2", "-f"]] {
            let result = await runCLI([command[0], archive] + command.dropFirst())
            #expect(result.status == 0, "\(command): \(result.error)")
            #expect(!result.output.isEmpty, "\(command)")
        }
    }

    @Test func writingCommandsAndOpenOfADirectoryAreRefused() async throws {
        let archive = try Self.fixture().path
        let sweep = await runCLI(["sweep", archive])
        #expect(sweep.status == 1)
        #expect(sweep.error.contains("read-only"))
        try await withTemporaryStore { _, url in
            let open = await runCLI(["open", url.path])
            #expect(open.status == 1)
            #expect(open.error.contains("not a file"))
        }
        try await withTemporaryDirectory { directory in
            let bogus = directory.appendingPathComponent("bogus.lsarchive")
            try Data("not an archive".utf8).write(to: bogus)
            let result = await runCLI(["open", bogus.path])
            #expect(result.status == 1)
            #expect(result.error.contains("not a LogStore archive"))
        }
    }

    @Test func openOfAMissingArchiveIsNotFound() async throws {
        try await withTemporaryDirectory { directory in
            // A name holding an escape sequence is printed escaped, never sent to the terminal.
            let missing = directory.appendingPathComponent("gone\u{1B}[2J.lsarchive")
            let result = await runCLI(["open", missing.path])
            #expect(result.status == ExitStatus.notFound)
            #expect(result.error.hasPrefix("logstore: no archive at "), "\(result.error)")
            #expect(result.error.contains("gone\\u{1b}[2J.lsarchive"))
            #expect(!result.error.contains("\u{1B}"))
            #expect(result.output.isEmpty)
        }
    }

    @Test func anArchiveExportsAgainToAnotherFormat() async throws {
        try await withTemporaryDirectory { directory in
            let output = directory.appendingPathComponent("errors.ndjson")
            let result = await runCLI(["export", try Self.fixture().path, "-o", output.path, "--level", "error"])
            #expect(result.status == 0, "\(result.error)")
            let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
            #expect(!lines.isEmpty)
            #expect(lines.filter { $0.contains(#""type":"message""#) }.allSatisfy { $0.contains(#""level":"error""#) || $0.contains(#""level":"critical""#) })
        }
    }
}

/// Decodes what `--json` prints (ISO 8601 dates with fractions).
private func archiveDecoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
        let text = try decoder.singleValueContainer().decode(String.self)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: text))
        }
        return date
    }
    return decoder
}
