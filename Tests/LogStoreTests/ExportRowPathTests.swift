import Foundation
@testable import LogStore
import Testing

/// The text and NDJSON exports write messages from their rows (SQLite's bytes, metadata from its
/// stored JSON): every line must be the one the ``LogStore/Message`` of the row gave before,
/// byte for byte, on a varied store (unicode, escapes, multi-line text, nested metadata, NULL
/// columns, and rows another tool wrote).
@Suite struct ExportRowPathTests {
    @Test func rowsExportAsTheirMessagesDid() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                try await Self.fill(store)
            }
            if SQLiteShell.isAvailable { try Self.addToolRows(url.appendingPathComponent("logs.sqlite")) }
            try await withStore(at: url, options: [.readonly]) { store in
                let exports = url.deletingLastPathComponent().appendingPathComponent("exports", isDirectory: true)
                try FileManager.default.createDirectory(at: exports, withIntermediateDirectories: true)
                let messages = try await allMessages(store)
                let sessions = try await store.sessions()
                #expect(messages.count > 500)

                var text = ExportLine()
                var current: UUID?
                var ndjson = ExportLine()
                for message in messages {
                    if message.sessionID != current {
                        current = message.sessionID
                        TextExport.appendSessionHeader(
                            message.sessionID, sessions.first { $0.id == message.sessionID }, to: &text)
                    }
                    TextExport.appendMessage(message, to: &text)
                    NDJSONExport.appendMessage(message, to: &ndjson)
                }
                let options = ExportOptions(tasks: nil)
                let exportedText = try await Self.export(store, .text, options, in: exports)
                let exportedNDJSON = try await Self.export(store, .ndjson, options, in: exports)
                Self.expectSameLines(exportedText, text.bytes)
                Self.expectSameLines(exportedNDJSON, ndjson.bytes)
            }
        }
    }

    /// The store's own JSON of metadata with plain keys takes the row path, and writes what the
    /// dictionary does; other keys are left to the dictionary path.
    @Test func storedMetadataWritesWhatTheDictionaryWrites() {
        var random = SeededRandom(seed: 33)
        var taken = 0
        for round in 0..<3000 {
            let metadata = round % 2 == 0
                ? Self.plainKeyedMetadata(depth: 0, using: &random)
                : RandomMetadata.metadata(depth: 0, using: &random)
            var json = MetadataJSON.encode(metadata)
            var expectedText = ExportLine()
            if !metadata.isEmpty {
                expectedText.append("  ")
                TextExport.appendMetadata(metadata, to: &expectedText)
            }
            var expectedJSON = ExportLine()
            expectedJSON.append(jsonMetadata: metadata)
            var scratch: [UInt8] = []
            var text: [UInt8] = []
            var jsonOutput: [UInt8] = []
            let (tookText, tookJSON) = json.withUTF8 { bytes in
                (
                    StoredMetadata.appendText(bytes, prefix: "  ", to: &text, scratch: &scratch),
                    StoredMetadata.appendJSON(bytes, .json, to: &jsonOutput, scratch: &scratch)
                )
            }
            #expect(tookText == tookJSON)
            if round % 2 == 0 { #expect(tookText, "\(json)") }
            if tookText {
                taken += 1
                #expect(text == expectedText.bytes, "\(json)")
                #expect(jsonOutput == expectedJSON.bytes, "\(json)")
            } else {
                #expect(text.isEmpty && jsonOutput.isEmpty)
            }
        }
        #expect(taken >= 1500)
    }

    @Test func millisecondsAreWrittenAsTheirDescription() {
        var random = SeededRandom(seed: 7)
        var values: [Double] = [0, -0.0, 1, -1, 5, 999, 1000, -1500, 1_750_000_000_125, 1_750_000_001_500, 99_999_999_999_999]
        for _ in 0..<20_000 {
            values.append(Double(Int64.random(in: -99_999_999_999_999...99_999_999_999_999, using: &random)))
            values.append(Double(Int64.random(in: -100_000...100_000, using: &random)))
        }
        values += [1e14, 1e15, 1e17, .nan, .infinity, 123.5]
        for milliseconds in values {
            var fast = ExportLine()
            fast.append(jsonMilliseconds: milliseconds)
            var described = ExportLine()
            described.append(jsonNumber: milliseconds / 1000)
            #expect(fast.bytes == described.bytes, "\(milliseconds)")
        }
    }

    // MARK: The store

    /// Texts that need every escape, several lines, no text at all, and plain ones.
    static let texts = [
        "plain text", "", "two\nlines\r\nand a tab\there", "ansi \u{1B}[31mred\u{1B}[0m and NUL \u{0}",
        "quotes \"x\" back\\slash", "C1 \u{85}\u{9B} DEL \u{7F}", "bidi \u{202E}evil\u{202C} iso \u{2066}x\u{2069}",
        "separators \u{2028}\u{2029}", "日本語のテキスト", "emoji 😀👍🏽 and é (e\u{301})", "[fake] CRITICAL [x]",
        "ends with backslash \\",
    ]

    private static func fill(_ store: LogStore) async throws {
        var random = SeededRandom(seed: 42)
        let labels = ["app", "http", "lábel", "api] CRITICAL [x", "new\nline", ""]
        // Several of the two-thread reader's chunks (ExportSource.rowsPerChunk) and query pages.
        for index in 0..<2_600 {
            let metadata: LogStore.Metadata? = switch index % 5 {
            case 0: nil
            case 1: [:]
            case 2: RandomMetadata.metadata(depth: 0, using: &random)
            default: plainKeyedMetadata(depth: 0, using: &random)
            }
            store.storeMessage(
                createdAt: Date(timeIntervalSince1970: 1_750_000_000 + Double(index) * 0.0137 - Double(index % 7) * 3.1),
                label: labels[index % labels.count], level: LogStore.Level.allCases[index % 7],
                message: texts[index % texts.count] + (index % 3 == 0 ? RandomMetadata.string(using: &random) : ""),
                metadata: metadata, file: index % 4 == 0 ? "" : "Sources/App/Fi le\(index % 3).swift",
                function: index % 6 == 0 ? "" : "run(\(index))", line: UInt(index % 50))
        }
        try await store.flush()
    }

    /// Metadata whose keys are plain ASCII (what the row path takes), values awkward.
    private static func plainKeyedMetadata(depth: Int, using random: inout SeededRandom) -> LogStore.Metadata {
        let keys = ["a", "b", "id", "user id", "k=v", "Z", "path", "tags", "{x}", "q,", "nested", "_", "0"]
        var metadata: LogStore.Metadata = [:]
        for _ in 0..<Int.random(in: 0...(depth == 0 ? 5 : 3), using: &random) {
            let key = keys.randomElement(using: &random) ?? "a"
            switch depth < 3 ? Int.random(in: 0..<6, using: &random) : 0 {
            case 0, 1: metadata[key] = .string(RandomMetadata.string(using: &random))
            case 2: metadata[key] = .string("")
            case 3: metadata[key] = .dictionary(plainKeyedMetadata(depth: depth + 1, using: &random))
            case 4: metadata[key] = .stringConvertible(Int.random(in: -1000...1000, using: &random))
            default:
                metadata[key] = .array((0..<Int.random(in: 0...3, using: &random)).map { _ in
                    Bool.random(using: &random)
                        ? .string(RandomMetadata.string(using: &random))
                        : .dictionary(plainKeyedMetadata(depth: depth + 1, using: &random))
                })
            }
        }
        return metadata
    }

    /// Rows another tool wrote: metadata the store never writes (numbers, literals, unsorted and
    /// duplicate keys, whitespace, surrogate escapes, not JSON), bytes that are not UTF-8, NULLs.
    private static func addToolRows(_ database: URL) throws {
        let metadata = [
            #"{"n":1,"b":true,"z":null}"#, #"{"b":"2","a":"1"}"#, #"{"dup":"first","dup":"second"}"#,
            #" { "a" : [ "x" , { "c" : "d" } ] } "#, #"{"s":"\ud83d\ude00","t":"\u00e9\/"}"#, #"{"bad":"\ud800"}"#,
            "not json", "[1,2]", "", #"{"k\u0041":"v"}"#, #"{"a":{"b":{"c":{"d":"deep"}}}}"#,
        ]
        var sql = ""
        for (index, json) in metadata.enumerated() {
            let literal = json.replacingOccurrences(of: "'", with: "''")
            sql += """
                INSERT INTO messages (created_at, session_id, level, label_id, text, metadata, file, function, line, thread_id)
                SELECT created_at + \(index), session_id, level, label_id, 'tool row \(index)', '\(literal)', file, function, line, thread_id
                FROM messages ORDER BY id LIMIT 1;

                """
        }
        // Not UTF-8: a lone continuation byte, a truncated sequence, an overlong slash, a surrogate.
        sql += """
            INSERT INTO messages (created_at, session_id, level, label_id, text, metadata, file, function, line, thread_id)
            SELECT created_at, session_id, 9, 9999, CAST(X'6F6B80FFE282C02FEDA080' AS TEXT),
                CAST(X'7B2261223A2280227D' AS TEXT), CAST(X'66C3' AS TEXT), 'f', 1, 424242
            FROM messages ORDER BY id LIMIT 1;
            """
        try SQLiteShell.run(database, sql)
    }

    private static func export(
        _ store: LogStore, _ format: ExportFormat, _ options: ExportOptions, in directory: URL
    ) async throws -> [UInt8] {
        let url = directory.appendingPathComponent("\(UUID().uuidString).\(format.fileExtension)")
        _ = try await store.export(to: url, format: format, options: options)
        return Array(try Data(contentsOf: url))
    }

    /// Compares line by line first, so a failure names the first line that differs.
    private static func expectSameLines(_ exported: [UInt8], _ expected: [UInt8]) {
        let exportedLines = exported.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let expectedLines = expected.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (got, want) in zip(exportedLines, expectedLines) where got != want {
            Issue.record("exported \(String(decoding: got, as: UTF8.self))\nexpected \(String(decoding: want, as: UTF8.self))")
            return
        }
        #expect(exportedLines.count == expectedLines.count)
        #expect(exported == expected)
    }
}
