import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// The fixed clock and the stores the tests of the `logstore` commands share.
enum CLIFixtures {
    /// 2025-06-15T15:06:40Z: "now" for the commands run in-process.
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    /// A minute after the demo's last message: with no age left, every message is before it.
    static let afterTheDemo = now.addingTimeInterval(60)

    /// A store with 30 known messages: labels `db` (every third) and `http`, levels cycling
    /// trace…critical, one a minute up to ``now``.
    static func makeStore(at url: URL) async throws {
        let store = try await LogStore(storeURL: url, options: [.create])
        for index in 0..<30 {
            store.storeMessage(
                createdAt: now.addingTimeInterval(Double(index - 29) * 60),
                label: index % 3 == 0 ? "db" : "http",
                level: LogStore.Level(rawValue: Int16(index % 7))!,
                message: "message \(index)\nsecond line",
                metadata: ["index": .string("\(index)"), "nested": ["tags": ["a", "b c"]]])
        }
        try await store.flush()
        try await store.close()
    }

    /// A demo store with `tasks` network tasks (the first ones are the demo's fixed showcase:
    /// a catalog page sent with credentials, images, a timeout, an export, 4xx and 5xx, …).
    static func makeDemoStore(at url: URL, count: Int = 300, tasks: Int = 60) async throws {
        let run = await CLIRun.run(
            ["demo", url.path, "--count", "\(count)", "--tasks", "\(tasks)", "--sessions", "2", "--seed", "11"], now: now)
        try #require(run.status == 0, "\(run.error)")
    }
}

/// A suite that runs `logstore` in-process at ``CLIFixtures/now`` and reads what it printed.
protocol CLITestCase {}

extension CLITestCase {
    func logstore(_ arguments: String..., now: Date = CLIFixtures.now) async -> CLIRun {
        await CLIRun.run(arguments, now: now)
    }

    func logstore(_ arguments: [String], now: Date = CLIFixtures.now) async -> CLIRun {
        await CLIRun.run(arguments, now: now)
    }

    func jsonObject(_ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// Every task of the store as `tasks --json` prints them, oldest first.
    func allTasks(_ url: URL, _ filters: String...) async throws -> [[String: Any]] {
        let run = await logstore(["tasks", url.path, "--json", "--oldest-first", "--limit", "100000"] + filters)
        try #require(run.status == 0, "\(run.error)")
        return try run.lines.map(jsonObject)
    }
}
