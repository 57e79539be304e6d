import Foundation
import LogStore
import Testing

/// The `.har` export read by a real consumer: Python's haralyzer (PyPI), which `.ci/run` installs.
@Suite("HAR consumer")
struct HARConsumerTests {
    /// Whether the `python3` on the PATH imports haralyzer (checked once).
    static let hasHaralyzer: Bool = {
        guard let result = try? runProcess("/usr/bin/env", ["python3", "-c", "import haralyzer"]) else { return false }
        return result.status == 0
    }()

    /// Loads the file with `HarParser`, walks every page and its entries reading the request and
    /// the response as a HAR tool would, and prints one line per entry and the totals.
    static let script = """
        import haralyzer, json, sys
        with open(sys.argv[1], encoding='utf-8') as f:
            parser = haralyzer.HarParser(json.load(f))
        assert parser.version == '1.2', parser.version
        print('creator', parser.creator['name'])
        seen = 0
        for page in parser.pages:
            for entry in page.entries:
                seen += 1
                request, response = entry.request, entry.response
                assert entry.startTime is not None
                assert all(entry.timings[k] >= 0 for k in ('send', 'wait', 'receive'))
                text = response.text
                posted = request.text
                print('entry', page.page_id != 'unknown', request.method, response.status,
                      response.contentSize, response.textEncoding or '-', len(text),
                      '-' if posted is None else len(posted), request.url, round(entry.time))
        print('pages', len([p for p in parser.pages if p.page_id != 'unknown']))
        print('entries', seen, len(parser.har_data['entries']))
        """

    @Test(.enabled(if: Self.hasHaralyzer, "python3 cannot import haralyzer (pip install haralyzer; .ci/run installs it)"))
    func haralyzerReadsEveryEntry() async throws {
        try await withTemporaryStoreURL { storeURL in
            let url = try #require(URL(string: "https://api.example.com/items?page=1"))
            // Two runs of the store: two sessions, so two pages.
            try await withStore(at: storeURL) { store in
                store.storeRequest(
                    NetworkRequest(url: url, headers: ["Accept": "application/json"]),
                    response: NetworkResponse(url: url, statusCode: 200, headers: ["Content-Type": "application/json"]),
                    error: nil, data: Data(#"{"items":[1,2,3]}"#.utf8),
                    metrics: NetworkMetrics(taskInterval: DateInterval(start: Date(), duration: 0.12)))
                store.storeRequest(
                    NetworkRequest(url: url, method: "POST", headers: ["Content-Type": "application/json"],
                                   body: Data(#"{"name":"x\u0000\u2028"}"#.utf8)),
                    response: NetworkResponse(url: url, statusCode: 404, headers: ["Content-Type": "application/json"]),
                    error: nil, data: Data(#"{"error":"missing"}"#.utf8))
                try await store.flush()
            }
            try await withStore(at: storeURL) { store in
                let image = try #require(URL(string: "https://cdn.example.com/a.png"))
                store.storeRequest(
                    NetworkRequest(url: image, method: "PUT", body: Data([0xFF, 0xD8, 0x00])),
                    response: NetworkResponse(url: image, statusCode: 200, headers: ["Content-Type": "image/png"]),
                    error: nil, data: Data([0x89, 0x50, 0x4E, 0x47, 0xFF]))
                store.storeRequest(NetworkRequest(url: url), response: nil, error: URLError(.notConnectedToInternet), data: nil)
                try await store.flush()

                let harURL = storeURL.deletingLastPathComponent().appendingPathComponent("consumer.har")
                let report = try await store.export(to: harURL, format: .har)
                #expect(report.taskCount == 4)
                #expect(report.sessionCount == 2)

                let result = try await onOwnThread {
                    try runProcess("/usr/bin/env", ["python3", "-c", Self.script, harURL.path])
                }
                #expect(result.status == 0, "haralyzer failed: \(result.standardError)")
                let lines = result.standardOutput.split(separator: "\n").map(String.init)
                #expect(lines.first == "creator LogStore")
                #expect(lines.last == "entries 4 4")
                #expect(lines.dropLast().last == "pages 2")
                let entries = lines.filter { $0.hasPrefix("entry ") }.map { $0.split(separator: " ").map(String.init) }
                try #require(entries.count == 4, "\(result.standardOutput)")
                // Every entry is under its session's page, with its method and status.
                #expect(entries.map { $0[1] } == ["True", "True", "True", "True"])
                #expect(entries.map { "\($0[2]) \($0[3])" } == ["GET 200", "POST 404", "PUT 200", "GET 0"])
                #expect(entries[0][4...6] == ["17", "-", "17"])  // size, no encoding, text length
                #expect(entries[1][7] == "\(#"{"name":"x\u0000\u2028"}"#.count)")
                #expect(entries[2][4...5] == ["5", "base64"])
                #expect(entries[2][7] == "4")  // the binary request body's Base64, from _textBase64
                #expect(entries[0][9] == "120")
            }
        }
    }
}
