import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore history`: the authors table and the history's size as text, `HistoryStatus` as
/// JSON, `--retire`, and a store without history.
@Suite("History CLI")
struct HistoryCLITests {
    /// The dates printed are relative to the real registration times: "now" is the clock's.
    func logstore(_ arguments: String...) async -> CLIRun {
        await CLIRun.run(arguments, now: Date())
    }

    func json(_ run: CLIRun) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    }

    @Test func printsTheAuthorsTheSizeAndTheCleanup() async throws {
        try await withTemporaryStoreURL { url in
            try await HistoryStatusTests.makeTwoAuthorStore(at: url)
            let run = await logstore("history", url.path)
            #expect(run.status == 0, "\(run.error)")
            let lines = run.output.split(separator: "\n").map(String.init)
            #expect(lines.first == "Change history of \(url.path)")
            let header = try #require(lines.first { $0.hasPrefix("AUTHOR") })
            for column in ["KIND", "CURSOR", "BEHIND (changes/txns)", "LAST MERGE", "MERGES", "RETIRED", "GAPS", "GUARD"] {
                #expect(header.contains(column), "\(column)")
            }
            let server = try #require(lines.first { $0.hasPrefix("server") })
            #expect(server.contains("required") && server.contains("3 / 3") && server.contains("never"))
            let worker = try #require(lines.first { $0.hasPrefix("worker") })
            #expect(worker.contains("2 / 2"))
            #expect(lines.contains { $0.hasPrefix("Changes:") && $0.contains("5 (seq 1…5), about ") })
            #expect(lines.contains { $0.hasPrefix("Last cleanup:") && $0.hasSuffix("never") })
            #expect(lines.contains { $0.hasPrefix("Cleanable now:") && $0.contains("nothing (held at the cursor of worker, seq 0)") })
            #expect(lines.contains { $0.hasPrefix("Retention guard:") && $0.hasSuffix("off (no required author asks for it)") })
        }
    }

    @Test func showsWhichAuthorAsksForTheRetentionGuard() async throws {
        try await withTemporaryStoreURL { url in
            var configuration = LogStore.Configuration()
            configuration.history = HistoryConfiguration(currentAuthor: "server", allAuthors: ["worker"], retentionGuard: true)
            try await withStore(at: url, configuration: configuration) { _ in }
            // A batch author cannot ask (the open would throw): it shows none.
            configuration.history = HistoryConfiguration(currentAuthor: "nightly", batchAuthors: ["nightly"])
            try await withStore(at: url, configuration: configuration) { _ in }
            let run = await logstore("history", url.path)
            #expect(run.status == 0, "\(run.error)")
            let lines = run.output.split(separator: "\n").map(String.init)
            #expect(try #require(lines.first { $0.hasPrefix("server") }).hasSuffix(" asks"))
            // Named by the server, the worker has not asked for anything.
            #expect(try #require(lines.first { $0.hasPrefix("worker") }).hasSuffix(" -"))
            #expect(try #require(lines.first { $0.hasPrefix("nightly") }).hasSuffix(" -"))
            #expect(lines.contains { $0.hasPrefix("Retention guard:") && $0.contains("on (asked by server)") })

            let json = try json(await logstore("history", url.path, "--json"))
            #expect(json["retentionGuardIsOn"] as? Bool == true)
            let authors = try #require(json["authors"] as? [[String: Any]])
            #expect(authors.map { $0["asksForRetentionGuard"] as? Bool } == [false, true, false])
        }
    }

    @Test func jsonIsTheStatusWithEveryKey() async throws {
        try await withTemporaryStoreURL { url in
            try await HistoryStatusTests.makeTwoAuthorStore(at: url)
            let run = await logstore("history", url.path, "--json")
            #expect(run.status == 0, "\(run.error)")
            let object = try json(run)
            #expect(Set(object.keys) == [
                "authors", "changeCount", "byteCount", "firstSequence", "lastSequence", "lastCleanup",
                "cleanedThrough", "cleanupLimit", "cleanableChangeCount", "retentionGuardIsOn", "shippers",
            ])
            #expect(object["retentionGuardIsOn"] as? Bool == false)
            #expect((object["shippers"] as? [Any])?.isEmpty == true)
            #expect(object["changeCount"] as? Int == 5)
            #expect(object["lastCleanup"] is NSNull)
            let authors = try #require(object["authors"] as? [[String: Any]])
            let server = try #require(authors.first)
            #expect(server["name"] as? String == "server")
            #expect(server["kind"] as? String == "required")
            #expect(server["behindChanges"] as? Int == 3)
            #expect(server["lastMerge"] is NSNull && server["retired"] is NSNull)
            #expect((server["registered"] as? String)?.hasSuffix("Z") == true)
            let gaps = try #require(server["gapRows"] as? [String: Int])
            #expect(gaps == ["message": 0, "task": 0, "session": 0, "blob": 0])
            #expect(server["asksForRetentionGuard"] as? Bool == false)
        }
    }

    @Test func retireRetiresThenPrints() async throws {
        try await withTemporaryStoreURL { url in
            try await HistoryStatusTests.makeTwoAuthorStore(at: url)
            let text = await logstore("history", url.path, "--retire", "server")
            #expect(text.status == 0, "\(text.error)")
            #expect(text.output.hasPrefix("Retired server: it no longer holds cleanup back, nor asks for the retention guard.\n"))
            #expect(text.output.contains("nothing (held at the cursor of worker, seq 0)"))
            let again = await logstore("history", url.path, "--json", "--retire", "server")
            let authors = try #require(try json(again)["authors"] as? [[String: Any]])
            #expect(authors.first?["retired"] is String)
            #expect(try json(again)["cleanupLimit"] as? Int == 0)

            let unknown = await logstore("history", url.path, "--retire", "nobody")
            #expect(unknown.status == ExitStatus.notFound)
            #expect(unknown.error.contains("no history author named 'nobody'"))
            // This process's writable opens were recorded too, as an unconfigured batch author.
            #expect(unknown.error.contains("its authors are server, unconfigured:"))
            #expect(unknown.error.contains(", worker)"))
        }
    }

    @Test func aStoreWithoutHistorySaysSoInOneLine() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            let run = await logstore("history", url.path)
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output == HistoryFormat.noHistory + "\n")
            let object = try json(await logstore("history", url.path, "--json"))
            #expect(object["changeCount"] as? Int == 0)
            #expect((object["authors"] as? [Any])?.isEmpty == true)
            #expect(object["cleanupLimit"] is NSNull)
            let retire = await logstore("history", url.path, "--retire", "server")
            #expect(retire.status == ExitStatus.notFound)
            #expect(retire.error.contains("it has none"))
        }
    }

    @Test func authorNamesAreEscaped() async throws {
        try await withTemporaryStoreURL { url in
            var configuration = LogStore.Configuration()
            configuration.history = HistoryConfiguration(currentAuthor: "evil\u{1B}[2J\nname")
            try await withStore(at: url, configuration: configuration) { _ in }
            let run = await logstore("history", url.path)
            #expect(run.status == 0, "\(run.error)")
            #expect(!run.output.contains("\u{1B}"))
            #expect(run.output.contains("evil\\u{1b}[2J\\nname"))
        }
    }
}
