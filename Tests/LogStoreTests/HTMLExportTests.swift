import Foundation
import LogStore
import Testing

/// What an attacker may log, and where it must not escape its text.
enum HostileText {
    /// Would set the title if the page parsed it as markup (and CSP allowed inline handlers).
    static let image = #"<img src=x onerror="document.title='pwned'">"#
    /// Would end the data block and run a script that adds an element with id `pwned`.
    static let scriptBreak =
        #"</script><script>document.body.appendChild(Object.assign(document.createElement('p'),{id:'pwned'}))</script>"#
    /// Would open an HTML comment inside the block (which changes how `</script>` is found).
    static let comment = "<!-- <script>"
    /// Line and paragraph separators, and the ampersand of an entity.
    static let separators = "a\u{2028}b\u{2029}c &amp; &lt;"
}

/// A small store with every kind of row the page shows, hostile strings among them.
enum HTMLExportFixture {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)
    static let jsonURL = URL(string: "https://api.example.com/v1/orders?page=2")!
    static let jsonBody = Data(#"{"id":7,"items":[{"sku":"A-1","quantity":2}],"status":"paid","note":"</script><b>x</b>"}"#.utf8)

    /// `count` ordinary messages (levels cycling, labels `app` and `db`, every tenth error says
    /// "needle"), the hostile ones first (so they are in view oldest-first), and three tasks: a
    /// JSON exchange with a hostile header, a large text body, a binary one.
    static func fill(_ store: LogStore, count: Int = 200) async throws {
        store.storeMessage(createdAt: start, label: "web", level: .error, message: HostileText.image)
        store.storeMessage(createdAt: start, label: "web", level: .error, message: HostileText.scriptBreak)
        store.storeMessage(createdAt: start, label: HostileText.comment, level: .warning, message: HostileText.separators,
                           metadata: ["payload": .string(HostileText.scriptBreak)])
        for index in 0..<count {
            let level = LogStore.Level(rawValue: Int16(index % 7)) ?? .info
            let text = index % 10 == 5 ? "needle \(index) found" : "message \(index) of the fixture"
            store.storeMessage(createdAt: start.addingTimeInterval(Double(index)), label: index % 2 == 0 ? "app" : "db",
                               level: level, message: text, metadata: ["index": .string("\(index)")])
        }
        let request = NetworkRequest(url: jsonURL, method: "POST",
                                     headers: ["Content-Type": "application/json", "X-Evil": HostileText.image],
                                     body: Data(#"{"order":7}"#.utf8))
        let response = NetworkResponse(url: jsonURL, statusCode: 201, headers: ["Content-Type": "application/json"])
        store.storeRequest(request, response: response, error: nil, data: jsonBody)
        let large = URL(string: "https://files.example.com/big.txt")!
        store.storeRequest(NetworkRequest(url: large), response: NetworkResponse(url: large, statusCode: 200, headers: ["Content-Type": "text/plain"]),
                           error: nil, data: Data(String(repeating: "é0123456789", count: 30_000).utf8))
        let binary = URL(string: "https://files.example.com/blob.bin")!
        store.storeRequest(NetworkRequest(url: binary), response: NetworkResponse(url: binary, statusCode: 200),
                           error: nil, data: Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 * 7) }))
        try await store.flush()
    }

    /// The export of a filled store, read back as text.
    static func export(_ store: LogStore, to directory: URL, options: ExportOptions = ExportOptions()) async throws -> (ExportReport, String) {
        let url = directory.appendingPathComponent("export-\(UUID().uuidString).html")
        let report = try await store.export(to: url, format: .html, options: options)
        return (report, try String(contentsOf: url, encoding: .utf8))
    }
}

/// The page read as text, without a browser: its structure, its policy and its escaping.
struct HTMLPageText {
    let text: String

    /// The text of `<script type="application/json" id="…">` blocks, by id.
    var dataBlocks: [String: String] {
        var blocks: [String: String] = [:]
        var rest = text[...]
        while let opening = rest.range(of: #"<script type="application/json" id=""#) {
            let afterID = rest[opening.upperBound...]
            guard let quote = afterID.firstIndex(of: "\""), let close = afterID.range(of: "</script>"),
                  let tagEnd = afterID[quote...].firstIndex(of: ">") else { break }
            blocks[String(afterID[..<quote])] = String(afterID[afterID.index(after: tagEnd)..<close.lowerBound])
            rest = afterID[close.upperBound...]
        }
        return blocks
    }

    /// The page without its data blocks' contents: what the exporter writes itself.
    var fixedParts: String {
        var result = text
        for block in dataBlocks.values { result = result.replacingOccurrences(of: block, with: "") }
        return result
    }

    /// The executable script's text.
    var script: String? {
        guard let start = text.range(of: "<script>", options: .backwards),
              let end = text.range(of: "</script>", range: start.upperBound..<text.endIndex) else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }

    func json(_ id: String) throws -> Any {
        let block = try #require(dataBlocks[id], "no \(id) block")
        return try JSONSerialization.jsonObject(with: Data(block.utf8), options: [.fragmentsAllowed])
    }

    func occurrences(of needle: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }
}

@Suite("HTML export")
struct HTMLExportTests {
    /// The viewer draws JSON bodies by recursion, one call per level: deeper JSON is shown as
    /// text (the browser test loads such a body).
    @Test func theViewerCapsTheDepthOfTheJSONItDraws() async throws {
        try await withTemporaryStore { store, url in
            let (_, text) = try await HTMLExportFixture.export(store, to: url.deletingLastPathComponent())
            let script = try #require(HTMLPageText(text: text).script)
            #expect(script.contains("var JSON_DEPTH_LIMIT = 100;"))
            #expect(script.contains("isJSON && isShallow(parsed, JSON_DEPTH_LIMIT) ? prettyJSON(parsed)"))
        }
    }

    @Test func pageIsSelfContainedWithAStrictPolicy() async throws {
        try await withTemporaryStore { store, url in
            try await HTMLExportFixture.fill(store, count: 20)
            let (_, text) = try await HTMLExportFixture.export(store, to: url.deletingLastPathComponent())
            let page = HTMLPageText(text: text)
            let fixed = page.fixedParts

            #expect(text.hasPrefix("<!DOCTYPE html>"))
            #expect(Set(page.dataBlocks.keys) == ["ls-meta", "ls-messages", "ls-tasks", "ls-tables"])
            // Four data blocks and one script: nothing else opens or closes a script.
            #expect(page.occurrences(of: "<script") == 5)
            #expect(page.occurrences(of: "</script>") == 5)
            for forbidden in ["<script src", "http://", "https://", "<link", "@import", "url(", "<iframe", "innerHTML",
                              "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
                #expect(!fixed.contains(forbidden), "the page's own parts contain \(forbidden)")
            }
            let policy = try #require(fixed.firstMatch(of: #/http-equiv="Content-Security-Policy" content="([^"]*)"/#)?.1)
            #expect(policy.hasPrefix("default-src 'none'; script-src 'sha256-"))
            #expect(policy.contains("style-src 'unsafe-inline'; img-src data:"))
            #expect(!policy.contains("unsafe-eval"))
            #expect(!policy.contains("script-src 'unsafe-inline'"))

            // The policy names the script's own hash (checked with coreutils, not our SHA-256).
            let sha256sum = "/usr/bin/sha256sum"
            guard FileManager.default.isExecutableFile(atPath: sha256sum) else {
                print("HTMLExportTests: \(sha256sum) is missing; the script hash is checked by the browser test only")
                return
            }
            let script = try #require(page.script)
            let scriptFile = url.deletingLastPathComponent().appendingPathComponent("script-\(UUID().uuidString).js")
            try Data(script.utf8).write(to: scriptFile)
            let hex = try await onOwnThread { try runProcess(sha256sum, [scriptFile.path]) }.standardOutput.prefix(64)
            let hash = try #require(policy.firstMatch(of: #/sha256-([A-Za-z0-9+\/=]+)'/#)?.1)
            let digest = try #require(Data(base64Encoded: String(hash)))
            #expect(digest.map { String(format: "%02x", $0) }.joined() == hex)
        }
    }

    @Test func hostileTextStaysInsideItsBlockAndReadsBack() async throws {
        try await withTemporaryStore { store, url in
            try await HTMLExportFixture.fill(store, count: 5)
            let (_, text) = try await HTMLExportFixture.export(store, to: url.deletingLastPathComponent())
            let page = HTMLPageText(text: text)

            for raw in [HostileText.image, HostileText.scriptBreak, HostileText.comment, "<b>x</b>", "<img", "<!--",
                        "\u{2028}", "\u{2029}", "&amp;"] {
                #expect(!text.contains(raw), "the page holds \(raw.debugDescription) unescaped")
            }
            for block in page.dataBlocks.values {
                #expect(!block.contains("<") && !block.contains(">") && !block.contains("&"))
            }

            let messages = try #require(try page.json("ls-messages") as? [[Any]])
            let texts = messages.compactMap { $0[5] as? String }
            #expect(texts.contains(HostileText.image))
            #expect(texts.contains(HostileText.scriptBreak))
            #expect(texts.contains(HostileText.separators))
            let metadata = messages.compactMap { $0[8] as? [String: Any] }
            #expect(metadata.contains { $0["payload"] as? String == HostileText.scriptBreak })
            let tables = try #require(try page.json("ls-tables") as? [String: Any])
            #expect((tables["labels"] as? [String])?.contains(HostileText.comment) == true)

            let tasks = try #require(try page.json("ls-tasks") as? [[String: Any]])
            let post = try #require(tasks.first { $0["m"] as? String == "POST" })
            let details = try #require(post["x"] as? [String: Any])
            let requestHeaders = try #require(details["qh"] as? [[String]])
            #expect(requestHeaders.contains(["X-Evil", HostileText.image]))
            let responseBody = try #require(details["rb"] as? [String: Any])
            #expect(responseBody["k"] as? String == "text")
            #expect(responseBody["v"] as? String == String(decoding: HTMLExportFixture.jsonBody, as: UTF8.self))
        }
    }

    @Test func bodiesAreCutAtTheLimitAndBinaryIsANote() async throws {
        try await withTemporaryStore { store, url in
            try await HTMLExportFixture.fill(store, count: 0)
            let (report, text) = try await HTMLExportFixture.export(store, to: url.deletingLastPathComponent())
            let page = HTMLPageText(text: text)
            let meta = try #require(try page.json("ls-meta") as? [String: Any])
            let limit = try #require(meta["bodyLimit"] as? Int)
            #expect(limit == 256 << 10)

            let tasks = try #require(try page.json("ls-tasks") as? [[String: Any]])
            func responseBody(_ path: String) throws -> [String: Any] {
                let task = try #require(tasks.first { ($0["u"] as? String)?.hasSuffix(path) == true })
                return try #require((task["x"] as? [String: Any])?["rb"] as? [String: Any])
            }
            let large = try responseBody("/big.txt")
            let cut = try #require(large["v"] as? String)
            #expect(large["cut"] as? Bool == true)
            #expect(large["n"] as? Int == 30_000 * 12)
            #expect(cut.utf8.count <= limit && cut.utf8.count > limit - 4)
            #expect(cut.hasPrefix("é0123456789é"))
            let binary = try responseBody("/blob.bin")
            #expect(binary["k"] as? String == "binary")
            #expect(binary["n"] as? Int == 4096)
            #expect(binary["v"] == nil)

            #expect(report.format == .html)
            #expect(report.taskCount == 3)
            #expect(report.messageCount == 3) // the hostile ones: a task's own message is not exported by default
            #expect(report.blobCount == 4) // one request body, three response bodies
            #expect(report.sessionCount == 1)
        }
    }

    /// A body cut at the limit keeps a character that ends right at the cut, and drops one the
    /// cut splits (whose partial bytes would not be UTF-8).
    @Test func aCutBodyKeepsACharacterEndingAtTheCut() async throws {
        try await withTemporaryStore { store, url in
            let limit = 256 << 10
            let bodies = [
                "ends": String(repeating: "a", count: limit - 2) + "é" + "tail",  // é is the limit's last 2 bytes
                "splits": String(repeating: "a", count: limit - 1) + "é" + "tail",  // the cut falls inside é
            ]
            for (name, body) in bodies {
                let address = try #require(URL(string: "https://files.example.com/\(name)"))
                store.storeRequest(NetworkRequest(url: address),
                                   response: NetworkResponse(url: address, statusCode: 200, headers: ["Content-Type": "text/plain"]),
                                   error: nil, data: Data(body.utf8))
            }
            try await store.flush()
            let (_, text) = try await HTMLExportFixture.export(store, to: url.deletingLastPathComponent())
            let tasks = try #require(try HTMLPageText(text: text).json("ls-tasks") as? [[String: Any]])
            func cut(_ name: String) throws -> String {
                let task = try #require(tasks.first { ($0["u"] as? String)?.hasSuffix(name) == true })
                let body = try #require((task["x"] as? [String: Any])?["rb"] as? [String: Any])
                #expect(body["cut"] as? Bool == true)
                return try #require(body["v"] as? String)
            }
            let ends = try cut("/ends")
            #expect(ends.utf8.count == limit)
            #expect(ends.hasSuffix("aé"))
            let splits = try cut("/splits")
            #expect(splits.utf8.count == limit - 1)
            #expect(splits.hasSuffix("aa"))
        }
    }

    /// Headers come in one order in every format: by name without case, then exactly.
    @Test func headersAreInTheOrderOfEveryFormat() async throws {
        try await withTemporaryStore { store, url in
            let address = try #require(URL(string: "https://api.example.com/order"))
            store.storeRequest(NetworkRequest(url: address, headers: ["b": "1", "a": "2", "C": "3", "A": "4"]),
                               response: NetworkResponse(url: address, statusCode: 204), error: nil, data: nil)
            try await store.flush()
            let expected = [["A", "4"], ["a", "2"], ["b", "1"], ["C", "3"]]
            let directory = url.deletingLastPathComponent()

            let (_, text) = try await HTMLExportFixture.export(store, to: directory)
            let task = try #require(try (HTMLPageText(text: text).json("ls-tasks") as? [[String: Any]])?.first)
            #expect((task["x"] as? [String: Any])?["qh"] as? [[String]] == expected)

            let har = directory.appendingPathComponent("order.har")
            _ = try await store.export(to: har, format: .har)
            let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any])
            let entry = try #require(((root["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
            let headers = try #require((entry["request"] as? [String: Any])?["headers"] as? [[String: String]])
            #expect(headers.map { [$0["name"] ?? "", $0["value"] ?? ""] } == expected)

            let ndjson = directory.appendingPathComponent("order.ndjson")
            _ = try await store.export(to: ndjson, format: .ndjson, options: ExportOptions(messages: nil))
            let line = try String(contentsOf: ndjson, encoding: .utf8)
            #expect(line.contains(#""requestHeaders":{"A":"4","a":"2","b":"1","C":"3"}"#))
        }
    }

    @Test func exportHonoursTheOptions() async throws {
        try await withTemporaryStore { store, url in
            try await HTMLExportFixture.fill(store, count: 70)
            let options = ExportOptions(messages: MessageQuery(levels: .error ... .critical), tasks: nil)
            let (report, text) = try await HTMLExportFixture.export(store, to: url.deletingLastPathComponent(), options: options)
            let page = HTMLPageText(text: text)
            let messages = try #require(try page.json("ls-messages") as? [[Any]])
            #expect(messages.count == report.messageCount)
            #expect(messages.allSatisfy { ($0[2] as? Int ?? 0) >= 5 })
            #expect(report.messageCount == 2 + 20)
            #expect(try #require(try page.json("ls-tasks") as? [Any]).isEmpty)
            #expect(report.taskCount == 0)
        }
    }
}
