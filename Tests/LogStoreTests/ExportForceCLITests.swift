import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore export` onto a file that exists: refused with a message that says the way through,
/// replaced atomically with `--force` (and through the library's
/// ``ExportOptions/replacesExistingFile``), the old file kept when the export fails.
@Suite struct ExportForceCLITests {
    func logstore(_ arguments: [String]) async -> CLIRun {
        await CLIRun.run(arguments, now: ExportFixture.at(60))
    }

    /// The fixed export store and an `exports` directory holding `old.log` ("keep").
    func withTakenFile(_ body: (URL, URL, URL) async throws -> Void) async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { try await ExportFixture.fill($0) }
            let exports = url.deletingLastPathComponent().appendingPathComponent("exports", isDirectory: true)
            try FileManager.default.createDirectory(at: exports, withIntermediateDirectories: true)
            let taken = exports.appendingPathComponent("old.log")
            try Data("keep".utf8).write(to: taken)
            try await body(url, exports, taken)
        }
    }

    @Test func anExistingFileIsRefusedWithTheWayThrough() async throws {
        try await withTakenFile { store, exports, taken async throws in
            let run = await logstore(["export", store.path, "-o", taken.path])
            #expect(run.status == ExitStatus.failure)
            #expect(run.error == "logstore: \(taken.path) already exists: pass --force to replace it, or choose another -o\n")
            #expect(try String(contentsOf: taken, encoding: .utf8) == "keep")
            #expect(try directoryListing(exports) == ["old.log"])
        }
    }

    @Test func forceReplacesTheFileAndLeavesNothingBeside() async throws {
        try await withTakenFile { store, exports, taken in
            let run = await logstore(["export", store.path, "-o", taken.path, "--force"])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.hasPrefix("Exported 4 messages, 2 tasks (1 session) to \(taken.path) (text): "))
            let text = try String(contentsOf: taken, encoding: .utf8)
            #expect(text.contains("WARNING  [http] slow response"))
            #expect(!text.hasPrefix("keep"))
            #expect(try directoryListing(exports) == ["old.log"])

            // An archive replaces one too, and opens again.
            let archive = exports.appendingPathComponent("a.lsarchive")
            try Data("not an archive".utf8).write(to: archive)
            #expect(await logstore(["export", store.path, "-o", archive.path, "--force"]).status == 0)
            #expect(await logstore(["open", archive.path]).status == 0)
            #expect(try directoryListing(exports) == ["a.lsarchive", "old.log"])
        }
    }

    @Test func aDirectoryIsNeverReplaced() async throws {
        try await withTakenFile { store, exports, _ in
            let directory = exports.appendingPathComponent("out.log", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
            let run = await logstore(["export", store.path, "-o", directory.path, "--force"])
            #expect(run.status == ExitStatus.failure)
            #expect(run.error == "logstore: \(directory.path) is a directory: give -o a file name\n")
            // The library refuses it too, whatever the caller checked.
            await #expect(throws: LogStoreError.fileAlreadyExists(directory)) {
                try await withStore(at: store, options: [.readonly]) { store in
                    try await store.export(to: directory, format: .text, options: ExportOptions(replacesExistingFile: true))
                }
            }
            #expect(FileManager.default.fileExists(atPath: directory.path))
        }
    }

    @Test func aFailedReplacementKeepsTheOldFile() async throws {
        try await withTakenFile { store, exports, taken async throws in
            // A query SQLite rejects fails after the temporary file was made.
            let failing = ExportOptions(messages: MessageQuery(text: .fts5("\"unbalanced")), replacesExistingFile: true)
            await #expect(throws: LogStoreError.self) {
                try await withStore(at: store, options: [.readonly]) { store in
                    try await store.export(to: taken, format: .text, options: failing)
                }
            }
            #expect(try String(contentsOf: taken, encoding: .utf8) == "keep")
            #expect(try directoryListing(exports) == ["old.log"])
        }
    }
}
