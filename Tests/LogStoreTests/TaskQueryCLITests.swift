import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore tasks`' URL search and filters, run in-process on real temporary stores as the
/// other command suites run theirs (``CLITestCase``).
@Suite struct TaskQueryCLITests {
    struct Run {
        var status: Int32
        var output: String
        var error: String

        var lines: [String] { output.split(separator: "\n").map(String.init) }
    }

    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    func logstore(_ arguments: [String]) async -> Run {
        var output = ""
        var error = ""
        let status = await LogStoreCommand.run(
            arguments, output: &output, error: &error, environment: CommandEnvironment(now: Self.now))
        return Run(status: status, output: output, error: error)
    }

    /// (URL, status or nil for a timeout, content type, duration in seconds), one a second
    /// before `now`.
    static let tasks: [(String, Int?, String?, TimeInterval)] = [
        ("https://api.example.com/api/v1/users", 200, "application/json; charset=utf-8", 0.1),
        ("https://api.example.com/api/v1/orders?page=2", 503, "application/json", 0.3),
        ("https://api.example.com/api/v10/legacy", 200, "text/html", 1.5),
        ("https://cdn.example.com/img/caf%C3%A9.png", 404, "image/png", 0.02),
        ("https://api.example.com/api/v1/orders/7", nil, nil, 12),
    ]

    func withTaskStore<T>(_ body: (URL) async throws -> T) async throws -> T {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                for (index, task) in Self.tasks.enumerated() {
                    let address = try #require(URL(string: task.0))
                    let createdAt = Self.now.addingTimeInterval(Double(index - Self.tasks.count))
                    store.storeRequest(
                        NetworkRequest(url: address),
                        response: task.1.map { NetworkResponse(url: address, statusCode: $0, headers: task.2.map { ["Content-Type": $0] } ?? [:]) },
                        error: task.1 == nil ? URLError(.timedOut) : nil, data: nil,
                        metrics: NetworkMetrics(taskInterval: DateInterval(start: createdAt, duration: task.3)),
                        createdAt: createdAt)
                }
                try await store.flush()
            }
            return try await body(url)
        }
    }

    /// The URLs `tasks --json` prints for these filters, oldest first.
    func urls(_ store: URL, _ filters: String...) async throws -> [String] {
        try await urls(store, filters)
    }

    func urls(_ store: URL, _ filters: [String]) async throws -> [String] {
        let run = await logstore(["tasks", store.path, "--json", "--oldest-first"] + filters)
        #expect(run.status == 0, "\(filters): \(run.error)")
        return try run.lines.map { line in
            let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require(object["url"] as? String)
        }
    }

    static func url(_ index: Int) -> String { tasks[index].0 }

    @Test func grepAndFTSSearchTheURLs() async throws {
        try await withTaskStore { store in
            let cases: [([String], [Int])] = [
                (["--grep", "orders"], [1, 4]),
                (["--grep", "cdn.example.com"], [3]),
                (["--grep", "CAFE"], [3]),  // the decoded path, without accents or case
                (["--grep", "orders AND users"], []),  // plain words: AND is one of them
                (["--grep", "\"("], []),
                (["--fts", "legacy OR users"], [0, 2]),
                (["--fts", "ord*"], [1, 4]),
            ]
            for (filters, expected) in cases {
                let found = try await urls(store, filters)
                #expect(found == expected.map(Self.url), "\(filters)")
            }
            // The human lines show the same tasks.
            let human = await logstore(["tasks", store.path, "--grep", "orders"])
            #expect(human.status == 0)
            #expect(human.lines.count == 3)
            #expect(human.lines.first?.hasPrefix("TIME ") == true)
            #expect(human.lines.dropFirst().allSatisfy { $0.contains("/api/v1/orders") })
        }
    }

    static let filterCases: [([String], [Int])] = [
        (["--status", "500-599"], [1]),
        (["--status", "4xx"], [3]),
        (["--host", "CDN.example.com"], [3]),
        (["--path", "/api/v1"], [0, 1, 2, 4]),
        (["--path", "/api/v1/", "--path", "/img"], [0, 1, 3, 4]),
        (["--min-duration", "250ms"], [1, 2, 4]),
        (["--min-duration", "1.5s"], [2, 4]),
        (["--max-duration", "0.1"], [0, 3]),
        (["--min-duration", "0.2s", "--max-duration", "2s"], [1, 2]),
        (["--errors"], [1, 3, 4]),
        (["--content-type", "application/json"], [0, 1]),
        (["--content-type", "IMAGE/*", "--content-type", "text/html"], [2, 3]),
        (["--grep", "api", "--path", "/api/v1/", "--errors", "--min-duration", "1s"], [4]),
        (["--errors", "--content-type", "application/json", "--status", "5xx"], [1]),
        (["--grep", "orders", "--host", "cdn.example.com"], []),
    ]

    @Test func filtersAloneAndCombined() async throws {
        try await withTaskStore { store in
            for (filters, expected) in Self.filterCases {
                let found = try await urls(store, filters)
                #expect(found == expected.map(Self.url), "\(filters)")
            }
        }
    }

    @Test func pagesOfASearchHaveNoGapsOrRepeats() async throws {
        try await withTaskStore { store in
            var arguments = ["tasks", store.path, "--grep", "api", "--limit", "2"]
            var seen: [String] = []
            for _ in 0..<5 {
                let run = await logstore(arguments)
                #expect(run.status == 0, "\(run.error)")
                let lines = run.lines
                seen += lines.filter { !$0.hasPrefix("-- more:") }.compactMap { $0.split(separator: " ").first { $0.hasPrefix("https://") }.map(String.init) }
                guard let more = lines.last, more.hasPrefix("-- more: ") else { break }
                arguments = ["tasks", store.path, "--grep", "api", "--limit", "2", "--cursor", try #require(more.split(separator: " ").last.map(String.init))]
            }
            #expect(seen == [4, 2, 1, 0].map(Self.url))
        }
    }

    @Test func anInvalidFTS5QueryIsAUsageError() async throws {
        try await withTaskStore { store in
            for query in ["orders AND", "(", "NEAR(", "\"unterminated", "nope:orders"] {
                let run = await logstore(["tasks", store.path, "--fts", query])
                #expect(run.status == 64, "\(query)")
                #expect(run.error.hasPrefix("logstore: --fts: "), "\(query): \(run.error)")
                #expect(run.error.contains("not a valid FTS5 query"), "\(query): \(run.error)")
                #expect(run.output.isEmpty)
            }
        }
    }

    @Test func badValuesAreUsageErrors() async throws {
        try await withTaskStore { store in
            let cases: [([String], String)] = [
                (["--min-duration", "fast"], "--min-duration"),
                (["--min-duration", "-1s"], "--min-duration"),
                (["--min-duration", "2d"], "--min-duration"),
                (["--max-duration", "25h"], "at most a day"),
                (["--min-duration", "2s", "--max-duration", "1s"], "must not be above"),
                (["--path", "api/v1"], "starting with /"),
                (["--content-type", "json"], "media type"),
                (["--content-type", ""], "media type"),
                (["--content-type", "*/*"], "media type"),
                (["--grep", "a", "--fts", "b"], "give one"),
                (["--status", "600-700"], "--status"),
                (["--status", "599-500"], "must not be above"),
                (["--errors=yes"], "--errors"),
            ]
            for (filters, expected) in cases {
                let run = await logstore(["tasks", store.path] + filters)
                #expect(run.status == 64, "\(filters)")
                #expect(run.error.hasPrefix("logstore: "), "\(filters)")
                #expect(run.error.contains(expected), "\(filters): \(run.error)")
            }
        }
    }

    @Test func helpListsTheNewOptions() async throws {
        let run = await logstore(["tasks", "--help"])
        #expect(run.status == 0)
        for option in ["--grep", "--fts", "--path", "--min-duration", "--max-duration", "--errors", "--content-type", "--status"] {
            #expect(run.output.contains(option), "\(option)")
        }
    }
}
