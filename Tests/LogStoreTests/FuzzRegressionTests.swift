import Foundation
import Testing

@testable import LogStore
@testable import LogStoreCLI

/// Replays every input saved under `Fixtures/fuzz/<target>/` — the fuzzers' findings, once fixed,
/// and a few of their hardest corpus inputs — through the entry the fuzz target of that name
/// calls (`Fuzz/<target>.swift`, `Scripts/fuzz.sh`): each must give no finding and not trap.
@Suite("Fuzz regressions", .timeLimit(.minutes(1)))
struct FuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz")

    /// One saved input and the target it belongs to.
    struct Input: Sendable, CustomTestStringConvertible {
        let target: String
        let file: URL
        var testDescription: String { "\(target)/\(file.lastPathComponent)" }
    }

    /// The targets whose entries take the bytes alone (the archive's needs a file: see below).
    static let entries: [String: @Sendable (Data) -> String?] = [
        "decoders": FuzzEntry.decoders,
        "imagesize": FuzzEntry.imageSize,
        "redaction": FuzzEntry.redaction,
        "urlfilter": FuzzEntry.urlFilter,
        "cli": CLIFuzzEntry.timeAndArguments,
    ]

    static func inputs(_ targets: [String]) -> [Input] {
        targets.flatMap { target in
            let folder = directory.appendingPathComponent(target)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.sorted().map { Input(target: target, file: folder.appendingPathComponent($0)) }
        }
    }

    @Test("every target has saved inputs")
    func everyTargetHasInputs() {
        for target in Self.entries.keys.sorted() + ["archive"] {
            #expect(!Self.inputs([target]).isEmpty, "Fixtures/fuzz/\(target)/ is empty")
        }
    }

    @Test("saved inputs give no finding", arguments: inputs(entries.keys.sorted()))
    func replays(_ input: Input) throws {
        let entry = try #require(Self.entries[input.target])
        let data = try Data(contentsOf: input.file)
        #expect(entry(data) == nil)
    }

    @Test("saved archives open or fail with a LogStoreError", arguments: inputs(["archive"]))
    func replaysArchive(_ input: Input) async throws {
        let data = try Data(contentsOf: input.file)
        try await withTemporaryDirectory { directory in
            let finding = await FuzzEntry.archive(data, at: directory.appendingPathComponent("input.lsarchive"))
            #expect(finding == nil)
        }
    }
}
