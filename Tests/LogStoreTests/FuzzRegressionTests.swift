import Foundation
import Testing

@testable import LogStore
@testable import LogStoreCLI

/// Replays every input saved under `Fixtures/fuzz/<target>/` — the fuzzers' findings, once fixed,
/// and a few of their hardest corpus inputs — through the entry the fuzz target of that name
/// calls (`Fuzz/<target>.swift`, `Scripts/fuzz.sh`): each must give no finding and not trap.
@Suite("Fuzz regressions", .timeLimit(.minutes(TimeScale.minutes(1))))
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
        "httprequest": FuzzEntry.httpRequest,
        "consolepath": FuzzEntry.consolePath,
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
    func replays(_ input: Input) async throws {
        let entry = try #require(Self.entries[input.target])
        let data = try Data(contentsOf: input.file)
        // On a thread of its own: some inputs are the fuzzers' hardest, seconds of synchronous
        // work each under a sanitizer, which would hold the cooperative pool every test shares.
        let finding = try await onOwnThread { entry(data) }
        #expect(finding == nil)
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

/// Found by fuzzing (Fixtures/fuzz/decoders/): Foundation truncated fractional seconds in binary
/// floating point, so a date before 1970 read back from a manifest printed a millisecond earlier
/// every time the manifest was rewritten.
@Suite("Store JSON dates")
struct StoreJSONDateTests {
    @Test("dates keep their milliseconds over repeated round trips", arguments: [
        "1013-11-30T09:40:30.121Z", "1969-12-31T23:59:59.999Z", "0001-01-01T00:00:00.001Z", "2026-03-01T12:30:00.250Z",
    ])
    func stableRoundTrip(_ text: String) throws {
        var current = text
        for _ in 0..<3 {
            let date = try #require(ISO8601.date(from: current))
            current = ISO8601.string(from: date)
        }
        #expect(current == text)
    }

    @Test func subMillisecondsRoundToTheNearest() {
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 0.9996)) == "1970-01-01T00:00:01.000Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: -0.0004)) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: -0.0006)) == "1969-12-31T23:59:59.999Z")
    }
}
