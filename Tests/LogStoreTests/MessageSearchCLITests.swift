import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore messages`' search options: `--grep`, `--fts`, `--meta`, `--exclude-label`,
/// `--file`, `--function`, `--reverse`, `--rank`, `--show-cursor` / `--after-cursor`.
@Suite struct MessageSearchCLITests {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    func logstore(_ arguments: String..., colors: Bool = false) async -> CLIRun {
        var output = ""
        var error = ""
        let status = await LogStoreCommand.run(
            arguments, output: &output, error: &error, environment: CommandEnvironment(usesColors: colors, now: Self.now))
        return CLIRun(status: status, output: output, error: error)
    }

    /// Six messages: two mention a timeout, metadata `user` cycles, files alternate.
    func withStore(_ body: (URL) async throws -> Void) async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create])
            for (index, text) in Self.known.prefix(6).enumerated() {
                store.storeMessage(
                    createdAt: Self.now.addingTimeInterval(Double(index - 10)), label: index % 2 == 0 ? "http" : "db",
                    level: .info, message: text, metadata: ["user": .string("u\(index % 3)"), "http": ["status": "50\(index)"]],
                    file: index < 3 ? "/app/Server.swift" : "/app/Lock.swift", function: "run()")
            }
            try await store.flush()
            try await store.close()
            try await body(url)
        }
    }

    static let known = [
        "connection reset by peer", "upstream timeout after 30 s", "user logged in",
        "Timeout waiting for the lock", "cache warmed", "disk almost full", "later one", "later two",
        "No messages match.",
    ]

    /// The known message texts the lines show, in order.
    func texts(_ run: CLIRun) -> [String] {
        run.lines.filter { !$0.hasPrefix("--") }.map { line in Self.known.first { line.contains($0) } ?? line }
    }

    @Test func grepFindsWordsAndHighlightsThemOnATerminal() async throws {
        try await withStore { url in
            let run = await logstore("messages", url.path, "--grep", "timeout")
            #expect(run.status == 0, "\(run.error)")
            #expect(texts(run) == ["Timeout waiting for the lock", "upstream timeout after 30 s"])
            let colored = await logstore("messages", url.path, "--grep", "timeout", colors: true)
            #expect(colored.output.contains("\u{1B}[1;31mTimeout\u{1B}[0m"))
            #expect(colored.output.contains("\u{1B}[1;31mtimeout\u{1B}[0m"))
            // Typed text is text: operators and quotes never fail.
            for hostile in ["\"", "(", "AND OR", "NEAR(", "-", "*"] {
                #expect(await logstore("messages", url.path, "--grep", hostile).status == 0, "\(hostile)")
            }
        }
    }

    @Test func ftsTakesFTS5SyntaxAndReportsABadQuery() async throws {
        try await withStore { url in
            let run = await logstore("messages", url.path, "--fts", "conn* OR disk", "--reverse")
            #expect(run.status == 0, "\(run.error)")
            #expect(texts(run) == ["connection reset by peer", "disk almost full"])
            let bad = await logstore("messages", url.path, "--fts", "timeout AND")
            #expect(bad.status != 0)
            #expect(bad.error.contains("not a valid FTS5 query"))
            let both = await logstore("messages", url.path, "--fts", "a", "--grep", "b")
            #expect(both.status == 64)
            #expect(both.error.contains("--grep and --fts"))
        }
    }

    @Test func rankOrdersByRelevance() async throws {
        try await withStore { url in
            let run = await logstore("messages", url.path, "--fts", "timeout OR lock", "--rank")
            #expect(run.status == 0, "\(run.error)")
            #expect(texts(run).first == "Timeout waiting for the lock")
            #expect(await logstore("messages", url.path, "--rank").status == 64)
            let paged = await logstore("messages", url.path, "--fts", "timeout OR lock", "--rank", "--limit", "1")
            #expect(paged.output.contains("--cursor r1"))
        }
    }

    @Test func metadataFilesFunctionsAndExcludedLabels() async throws {
        try await withStore { url in
            #expect(texts(await logstore("messages", url.path, "--meta", "user=u1", "--reverse"))
                == ["upstream timeout after 30 s", "cache warmed"])
            #expect(texts(await logstore("messages", url.path, "--meta", "http.status=503"))
                == ["Timeout waiting for the lock"])
            #expect(texts(await logstore("messages", url.path, "--meta", "http")).count == 6)
            #expect(texts(await logstore("messages", url.path, "--meta", "missing")) == ["No messages match."])
            #expect(texts(await logstore("messages", url.path, "--file", "Lock.swift", "--exclude-label", "db"))
                == ["cache warmed"])
            #expect(texts(await logstore("messages", url.path, "--function", "run()")).count == 6)
            for bad in ["=x", "a..b=1", ".a"] {
                let run = await logstore("messages", url.path, "--meta", bad)
                #expect(run.status == 64, "\(bad)")
                #expect(run.error.contains("--meta"))
            }
        }
    }

    @Test func quotedMetadataKeysKeepTheirDots() async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create])
            // swift-log's flat `error.message` beside a nested `error` → `message`.
            store.storeMessage(createdAt: Self.now, label: "app", level: .error, message: "flat key",
                               metadata: ["error.message": "timeout", "error.type": "IOError"])
            store.storeMessage(createdAt: Self.now, label: "app", level: .error, message: "nested key",
                               metadata: ["error": ["message": "timeout", "x.y": "1"]])
            try await store.flush()
            try await store.close()
            func found(_ filter: String) async -> [String] {
                let run = await logstore("messages", url.path, "--meta", filter)
                #expect(run.status == 0, "\(filter): \(run.error)")
                return ["flat key", "nested key"].filter { run.output.contains($0) }
            }
            #expect(await found(#""error.message"=timeout"#) == ["flat key"])
            #expect(await found(#""error.type""#) == ["flat key"])
            #expect(await found("error.message=timeout") == ["nested key"])
            #expect(await found(#"error."x.y"=1"#) == ["nested key"])
            #expect(await found(#""error"."message""#) == ["nested key"])
        }
    }

    @Test func metadataFilterSyntax() throws {
        #expect(try ValueParsers.metadataFilter(#""a.b"=x=y"#) == .equals(["a.b"], "x=y"))
        #expect(try ValueParsers.metadataFilter(#""k=v"=1"#) == .equals(["k=v"], "1"))
        #expect(try ValueParsers.metadataFilter(#"a."b.c".d"#) == .exists(["a", "b.c", "d"]))
        #expect(try ValueParsers.metadataFilter("a.b=") == .equals(["a", "b"], ""))
        #expect(try ValueParsers.metadataFilter(#"a="q""#) == .equals(["a"], #""q""#))
        for bad in [#""a"#, #"a"b""#, #""a"b"#, "\"\"=1", "a.", #""a"."#] {
            #expect(throws: UsageError.self, "\(bad)") { try ValueParsers.metadataFilter(bad) }
        }
    }

    @Test func showCursorThenAfterCursorListsOnlyWhatCameLater() async throws {
        try await withStore { url in
            let first = await logstore("messages", url.path, "--show-cursor")
            let cursorLine = try #require(first.lines.last)
            #expect(cursorLine.hasPrefix("-- cursor: m"))
            let cursor = String(cursorLine.dropFirst("-- cursor: ".count))
            #expect(texts(await logstore("messages", url.path, "--after-cursor", cursor)) == ["No messages match."])
            let store = try await LogStore(storeURL: url, options: [])
            store.storeMessage(label: "http", level: .info, message: "later one")
            store.storeMessage(label: "http", level: .info, message: "later two")
            try await store.close()
            #expect(texts(await logstore("messages", url.path, "--after-cursor", cursor)) == ["later one", "later two"])
            #expect(await logstore("messages", url.path, "--after-cursor", "r3").status == 64)
            #expect(await logstore("messages", url.path, "--after-cursor", cursor, "--cursor", cursor).status == 64)
            let json = await logstore("messages", url.path, "--json", "--show-cursor", "--limit", "1")
            #expect(json.error.contains("cursor: m"))
        }
    }
}
