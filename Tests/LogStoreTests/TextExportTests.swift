import Foundation
import LogStore
import Synchronization
import Testing

/// `export(to:format: .text)`: the golden output of a fixed store, escaping, and what every
/// streaming export guarantees about its file (no overwrite, no leftovers, progress, cancellation).
@Suite struct TextExportTests {
    static let golden = #"""
        # session SESSION1
        2025-06-15T15:06:40.125Z INFO     [app] server started  env=prod port=8080  (Server.swift:10)
        2025-06-15T15:06:41.000Z WARNING  [http] slow response  request={id=r-1 path=/orders} tags=[a,"b c"]  (Routes.swift:88)
        2025-06-15T15:06:41.500Z ERROR    [http] line one\nline two\u{1b}[31mred\u{0}nul "quoted" back\\slash \u{2028}sep \u{202e}rtl"},{"x":1  empty="" evil="a=b \"c\"\n"  (Routes.swift:90)
        2025-06-15T15:06:43.999Z DEBUG    [db] query took 3 ms  (DB.swift:7)
        # network tasks
        # session SESSION1
        2025-06-15T15:06:42.000Z SUCCESS  [network] GET 200 https://api.example.com/users?page=2 250ms sent=0B received=12B
        2025-06-15T15:06:43.000Z FAILURE  [network] POST --- https://api.example.com/orders 1500ms sent=8B received=0B  error=TestDomain 7: connection reset

        """#

    static let goldenDetails = #"""
        # network tasks
        # session SESSION1
        2025-06-15T15:06:42.000Z SUCCESS  [network] GET 200 https://api.example.com/users?page=2 250ms sent=0B received=12B
            > Accept: application/json
            > X-Trace: t-1
            < Content-Type: application/json
        2025-06-15T15:06:43.000Z FAILURE  [network] POST --- https://api.example.com/orders 1500ms sent=8B received=0B  error=TestDomain 7: connection reset
            > Content-Type: application/json

        """#

    @Test func matchesTheGolden() async throws {
        try await ExportFixture.withStore { store, exports in
            let text = try await ExportFixture.export(store, .text, in: exports)
            let sessions = try await store.sessions().map(\.id)
            #expect(ExportFixture.normalised(text, sessions: sessions) == Self.golden)
            // The session header names the process and host.
            let header = try #require(text.split(separator: "\n").first)
            #expect(header.hasPrefix("# session \(sessions[0].uuidString) started "))
            #expect(header.contains(" pid \(ProcessInfo.processInfo.processIdentifier) on "))
        }
    }

    @Test func taskDetailsAddTheHeadersIndented() async throws {
        try await ExportFixture.withStore { store, exports in
            let text = try await ExportFixture.export(
                store, .text, options: ExportOptions(messages: nil, includesTaskDetails: true), in: exports)
            let sessions = try await store.sessions().map(\.id)
            #expect(ExportFixture.normalised(text, sessions: sessions) == Self.goldenDetails)
        }
    }

    @Test func hostileTextStaysOnOneLineWithoutControls() async throws {
        try await ExportFixture.withStore { store, exports in
            let text = try await ExportFixture.export(store, .text, in: exports)
            // 4 messages, 2 tasks, 3 headers: the hostile message's newline made no line.
            #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == 10)
            let scalars = text.unicodeScalars.map(\.value)
            #expect(!scalars.contains { ($0 < 0x20 && $0 != 0x0A) || (0x7F...0x9F).contains($0) })
            #expect(!scalars.contains { [0x2028, 0x2029, 0x202E].contains($0) })
        }
    }

    /// A label cannot close its column: `]` and `[` in it are escaped (as scalars, so that no
    /// bracket is left), and the level column beside it is the only one on the line.
    @Test func labelsCannotForgeTheLevelColumn() async throws {
        try await withTemporaryStore { store, url in
            store.storeMessage(createdAt: ExportFixture.start, label: "api] CRITICAL [x", level: .info, message: "hello")
            try await store.flush()
            let text = try await ExportFixture.export(store, .text, in: url.deletingLastPathComponent())
            let line = try #require(text.split(separator: "\n").first { !$0.hasPrefix("#") })
            #expect(line.hasPrefix(#"2025-06-15T15:06:40.000Z INFO     [api\u{5d} CRITICAL \u{5b}x] hello  ("#))
            // The first `]` of the line ends the label: nothing a label holds reads as a column.
            #expect(line.split(separator: "]").count == 2)
        }
    }

    /// A backslash is escaped, so a logged `\n` (two characters) reads apart from an escaped
    /// newline.
    @Test func backslashesAreEscapedSoEscapesReadBackUniquely() async throws {
        try await withTemporaryStore { store, url in
            store.storeMessage(createdAt: ExportFixture.start, label: "app", level: .info, message: #"literal \n"#)
            store.storeMessage(createdAt: ExportFixture.at(1), label: "app", level: .info, message: "real \n")
            store.storeMessage(createdAt: ExportFixture.at(2), label: "a\\b", level: .info, message: #"\u{1b}"#)
            try await store.flush()
            let text = try await ExportFixture.export(store, .text, in: url.deletingLastPathComponent())
            let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(lines.count == 3)
            #expect(lines[0].contains(#"[app] literal \\n  ("#))
            #expect(lines[1].contains(#"[app] real \n  ("#))
            #expect(lines[2].contains(#"[a\\b] \\u{1b}  ("#))
        }
    }

    @Test func refusesToOverwriteAndLeavesTheFileAlone() async throws {
        try await ExportFixture.withStore { store, exports in
            let url = exports.appendingPathComponent("taken.log")
            try Data("keep".utf8).write(to: url)
            await #expect(throws: LogStoreError.fileAlreadyExists(url)) {
                try await store.export(to: url, format: .text)
            }
            #expect(try String(contentsOf: url, encoding: .utf8) == "keep")
            #expect(try directoryListing(exports) == ["taken.log"])
        }
    }

    @Test func aMissingDirectoryIsFileDoesntExist() async throws {
        try await ExportFixture.withStore { store, exports in
            let missing = exports.appendingPathComponent("missing", isDirectory: true)
            await #expect(throws: LogStoreError.fileDoesntExist(missing)) {
                try await store.export(to: missing.appendingPathComponent("out.log"), format: .text)
            }
            let listing = try directoryListing(exports)
            #expect(listing.isEmpty)
        }
    }

    @Test func leavesNoTemporaryFileAfterSuccessOrFailure() async throws {
        try await ExportFixture.withStore { store, exports in
            let url = exports.appendingPathComponent("out.log")
            let report = try await store.export(to: url, format: .text)
            #expect(try directoryListing(exports) == ["out.log"])
            #expect(report.messageCount == 4 && report.taskCount == 2 && report.sessionCount == 1)
            #expect(report.byteCount == Int64(try Data(contentsOf: url).count))
            // A query SQLite rejects fails after the temporary file was made.
            let failing = ExportOptions(messages: MessageQuery(text: .fts5("\"unbalanced")))
            await #expect(throws: LogStoreError.self) {
                try await store.export(to: exports.appendingPathComponent("failed.log"), format: .text, options: failing)
            }
            #expect(try directoryListing(exports) == ["out.log"])
        }
    }

    @Test func progressEndsFinishedWithEverythingDone() async throws {
        try await ExportFixture.withStore { store, exports in
            let reports = Recorder<[ExportProgress]>([])
            _ = try await store.export(to: exports.appendingPathComponent("out.log"), format: .text) { progress in
                reports.update { $0.append(progress) }
            }
            let seen = reports.current
            #expect(seen.map(\.phase).contains(.messages))
            #expect(seen.map(\.phase).contains(.tasks))
            #expect(seen.last == ExportProgress(phase: .finished, completed: 6, total: 6))
            #expect(seen.map(\.completed) == seen.map(\.completed).sorted())
        }
    }

    @Test func cancellationLeavesNoFile() async throws {
        try await withTemporaryStore { store, url in
            for index in 0..<2_500 {
                store.storeMessage(createdAt: ExportFixture.at(Double(index)), label: "bulk", level: .info, message: "row \(index)")
            }
            try await store.flush()
            let exports = url.deletingLastPathComponent().appendingPathComponent("exports", isDirectory: true)
            try FileManager.default.createDirectory(at: exports, withIntermediateDirectories: true)
            let exportTask = Mutex<Task<ExportReport, any Error>?>(nil)
            let (start, starting) = AsyncStream<Void>.makeStream()
            let task = Task {
                for await _ in start { break }
                // The first report cancels the export from inside it: the next row stops it.
                return try await store.export(to: exports.appendingPathComponent("out.log"), format: .text) { _ in
                    exportTask.withLock { $0?.cancel() }
                }
            }
            exportTask.withLock { $0 = task }
            starting.yield()
            starting.finish()
            let result = try await withinTimeLimit(seconds: 30) { await task.result }
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(try directoryListing(exports).isEmpty)
        }
    }
}
