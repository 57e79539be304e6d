import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `messages --expand` and `tail --expand`: a multi-line message (a stack trace) on several
/// lines, indented to the text column; one line per message by default.
@Suite struct ExpandedMessagesCLITests: CLITestCase {
    static let trace = "request failed: timeout\n  at Fetch.run (fetch.swift:42)\n\n  at main (main.swift:7)\n"

    /// A store with one single-line message and the stack trace after it.
    func makeStore(at url: URL) async throws {
        try await withStore(at: url) { store in
            store.storeMessage(createdAt: CLIFixtures.now.addingTimeInterval(-60), label: "db", level: .info, message: "one line")
            store.storeMessage(
                createdAt: CLIFixtures.now.addingTimeInterval(-30), label: "http.client", level: .error, message: Self.trace,
                metadata: ["request_id": "7"])
            try await store.flush()
        }
    }

    /// The lines of the trace as printed from `start` in `lines`, checked for the indentation.
    func expectExpanded(_ lines: [String], at start: Int) throws {
        try #require(lines.count >= start + 4, "\(lines)")
        let first = lines[start]
        let column = try #require(first.range(of: "request failed: timeout")).lowerBound
        let indent = String(repeating: " ", count: first.distance(from: first.startIndex, to: column))
        #expect(first.hasSuffix("request failed: timeout  request_id=7"), "\(first)")
        #expect(lines[start + 1] == indent + "  at Fetch.run (fetch.swift:42)")
        #expect(lines[start + 2] == indent)
        #expect(lines[start + 3] == indent + "  at main (main.swift:7)")
    }

    @Test func messagesExpandsOnAskingAndKeepsOneLineByDefault() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            let plain = await logstore("messages", url.path, "--oldest-first")
            #expect(plain.lines.count == 2)
            #expect(plain.lines[1].contains(#"request failed: timeout\n  at Fetch.run"#))

            let expanded = await logstore("messages", url.path, "--oldest-first", "--expand")
            #expect(expanded.status == 0, "\(expanded.error)")
            let lines = expanded.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.count == 6, "\(lines)")  // 1 + 4, and the final newline
            #expect(lines[0].hasSuffix("one line"))
            try expectExpanded(lines, at: 1)
        }
    }

    @Test func tailExpandsToo() async throws {
        try await withTemporaryStoreURL { url in
            try await makeStore(at: url)
            // An archive's tail ends once read: it runs in-process.
            let archive = url.deletingLastPathComponent().appendingPathComponent("a.lsarchive")
            try await withStore(at: url, options: [.readonly]) { _ = try await $0.export(to: archive) }
            let run = await logstore("tail", archive.path, "--expand")
            #expect(run.status == 0, "\(run.error)")
            let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines[0].hasSuffix("one line"))
            try expectExpanded(lines, at: 1)
            #expect(await logstore("tail", archive.path).lines.count == 2)
        }
    }
}
