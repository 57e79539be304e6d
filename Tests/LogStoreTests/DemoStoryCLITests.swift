import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// The story `logstore demo` tells: each session holds what it logged, and there is an outage
/// to find (a burst of errors and failed tasks that `summary` and `messages --level error` show).
@Suite struct DemoStoryCLITests: CLITestCase {
    @Test func everyMessageAndTaskLiesWithinItsSession() async throws {
        try await withTemporaryStoreURL { url in
            let run = await logstore("demo", url.path, "--count", "3000", "--tasks", "150", "--sessions", "4", "--seed", "5")
            #expect(run.status == 0, "\(run.error)")
            try await withStore(at: url, options: [.readonly]) { store in
                let sessions = try await store.sessions().sorted { $0.startDate < $1.startDate }
                #expect(sessions.count == 4)
                // A session runs from its start to the next one's (the last one to now).
                var spans: [UUID: Range<Date>] = [:]
                for (index, session) in sessions.enumerated() {
                    let end = index + 1 < sessions.count ? sessions[index + 1].startDate : CLIFixtures.now.addingTimeInterval(1)
                    spans[session.id] = session.startDate..<end
                }
                #expect(sessions.allSatisfy { $0.startDate <= CLIFixtures.now && $0.startDate > CLIFixtures.now.addingTimeInterval(-4 * 3600) })
                let messages = try await store.messages(MessageQuery(order: .oldestFirst, limit: 10_000, includesTaskMessages: true))
                #expect(messages.messages.count > 3000)
                for message in messages.messages {
                    let span = try #require(spans[message.sessionID])
                    #expect(span.contains(message.createdAt), "message \(message.id) at \(message.createdAt), session \(span)")
                }
                let tasks = try await store.tasks(TaskQuery(order: .oldestFirst, limit: 10_000))
                #expect(tasks.tasks.count == 150)
                for task in tasks.tasks {
                    let span = try #require(spans[task.sessionID])
                    #expect(span.contains(task.createdAt), "task \(task.id) at \(task.createdAt), session \(span)")
                }
            }
        }
    }

    @Test func theOutageIsABurstOfErrorsAndFailedTasks() async throws {
        try await withTemporaryStoreURL { url in
            let run = await logstore("demo", url.path, "--count", "20000", "--sessions", "3", "--seed", "9")
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.contains("logstore summary \(url.path)"))
            #expect(run.output.contains("logstore messages \(url.path) --level error --limit 20"))

            // What `messages --level error` lists, counted per minute of the timeline.
            let errors = await logstore("messages", url.path, "--level", "error", "--json", "--limit", "100000", "--oldest-first")
            #expect(errors.status == 0, "\(errors.error)")
            let times = try errors.lines.map { try Self.date(try #require(try jsonObject($0)["time"] as? String)) }
            let start = CLIFixtures.now.addingTimeInterval(-3 * 3600)
            var perMinute = [Int](repeating: 0, count: 181)
            for time in times { perMinute[min(180, max(0, Int(time.timeIntervalSince(start) / 60)))] += 1 }
            let median = perMinute.sorted()[perMinute.count / 2]
            let peak = try #require(perMinute.max())
            #expect(median >= 1, "\(perMinute)")
            #expect(peak >= 5 * median, "peak \(peak), median \(median): \(perMinute)")
            let peakMinute = try #require(perMinute.firstIndex(of: peak))
            // A burst, not a plateau: the busy minutes are a handful.
            #expect(perMinute.filter { $0 >= 5 * median }.count <= 8, "\(perMinute)")

            // The failed tasks crowd into the same minutes (five minutes of three hours).
            let window = start.addingTimeInterval(Double(peakMinute - 5) * 60)..<start.addingTimeInterval(Double(peakMinute + 6) * 60)
            let failed = try await allTasks(url, "--errors").map { try Self.date(try #require($0["createdAt"] as? String)) }
            let inWindow = failed.filter(window.contains).count
            #expect(inWindow * 3 >= failed.count, "\(inWindow) of \(failed.count) failed tasks in the outage")

            // `summary` shows the burst: its busiest bucket holds many times the errors of a usual one.
            let summary = await logstore("summary", url.path, "--buckets", "36", "--json")
            #expect(summary.status == 0, "\(summary.error)")
            let buckets = try #require(try jsonObject(summary.output)["histogram"] as? [[String: Any]])
            let errorCounts = buckets.map { bucket -> Int in
                let levels = bucket["levels"] as? [String: Any] ?? [:]
                return (levels["error"] as? Int ?? 0) + (levels["critical"] as? Int ?? 0)
            }
            let usual = errorCounts.sorted()[errorCounts.count / 2]
            #expect(usual > 0 && (errorCounts.max() ?? 0) >= 5 * usual, "\(errorCounts)")
        }
    }

    static func date(_ text: String) throws -> Date {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try #require(withFraction.date(from: text) ?? ISO8601DateFormatter().date(from: text), "\(text)")
    }
}
