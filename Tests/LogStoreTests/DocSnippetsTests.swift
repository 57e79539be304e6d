import Foundation
import Testing

/// Every ```swift block of the README and the DocC articles is compiled as a file of the
/// `SnippetTests` target (DEVELOPERS.md, "The docs' Swift blocks"), so a snippet that no longer
/// compiles, or warns, fails the build with the Markdown file and line. Those files are written by
/// `Scripts/snippets.py`; this test fails, naming each block, when a document changed and they
/// were not written again, so the build never checks an old copy of a block.
@Suite("DocSnippets")
struct DocSnippetsTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let hasPython = isOnPath("python3")

    @Test(.enabled(if: hasPython, "needs python3"))
    func generatedSnippetsMatchTheDocs() async throws {
        let script = Self.repository.appendingPathComponent("Scripts/snippets.py")
        let run = try await SpawnedProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, "--check"], seconds: 60)
        #expect(!run.timedOut && run.status == 0, "\(run.output)")
    }

    /// The check itself: a block that differs from its generated file is named with its
    /// document, block number and line, and nothing is written.
    @Test(.enabled(if: hasPython, "needs python3"))
    func aChangedBlockIsNamed() async throws {
        try await withTemporaryDirectory { root in
            let docc = root.appendingPathComponent("Sources/Example/Example.docc")
            let generated = root.appendingPathComponent("Tests/SnippetTests/Generated")
            try FileManager.default.createDirectory(at: docc, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("Scripts"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: Self.repository.appendingPathComponent("Scripts/snippets.py"),
                to: root.appendingPathComponent("Scripts/snippets.py"))
            let readme = root.appendingPathComponent("README.md")
            try "# Example\n\n```swift\nlet a = 1\n```\n".write(to: readme, atomically: true, encoding: .utf8)
            try "# Article\n\n<!-- snippet: skip, a manifest -->\n```swift\nlet package = 1\n```\n\n<!-- snippet: given store: LogStore -->\n```swift\nstore.storeMessage(label: \"a\", level: .info, message: \"b\")\n```\n"
                .write(to: docc.appendingPathComponent("Article.md"), atomically: true, encoding: .utf8)
            let script = root.appendingPathComponent("Scripts/snippets.py").path

            let written = try await SpawnedProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"), ["python3", script], seconds: 60)
            #expect(written.status == 0, "\(written.output)")
            let article = try String(contentsOf: generated.appendingPathComponent("Article_2.swift"), encoding: .utf8)
            #expect(article.contains("func snippet_Article_2(store: LogStore) async throws {"))
            #expect(article.contains(#"#sourceLocation(file: "Sources/Example/Example.docc/Article.md", line: 10)"#))
            let skipped = try String(contentsOf: generated.appendingPathComponent("Skipped.swift"), encoding: .utf8)
            #expect(skipped.contains("Sources/Example/Example.docc/Article.md, block 1: a manifest"))

            try "# Example\n\n```swift\nlet a = 2\n```\n".write(to: readme, atomically: true, encoding: .utf8)
            let check = try await SpawnedProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, "--check"], seconds: 60)
            #expect(check.status == 1)
            #expect(check.output.contains("out of date: Tests/SnippetTests/Generated/README_1.swift (from README.md, block 1 (line 3))"),
                    "\(check.output)")
            let kept = try String(contentsOf: generated.appendingPathComponent("README_1.swift"), encoding: .utf8)
            #expect(kept.contains("let a = 1"))
        }
    }
}
