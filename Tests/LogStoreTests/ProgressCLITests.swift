import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// The progress bars of `logstore sweep` and `logstore demo`: drawn on the progress output a
/// terminal's stderr gives (and erased before the summary), never on stdout, and absent when
/// stderr is piped.
@Suite struct ProgressCLITests {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    func logstore(_ arguments: [String], progress: Recorder<String>? = nil) async -> CLIRun {
        await CLIRun.run(arguments, now: Self.now, progress: progress)
    }

    @Test func sweepDrawsItsPhasesOnTheProgressOutputOnly() async throws {
        try await withTemporaryStoreURL { url in
            #expect(await logstore(["demo", url.path, "--count", "2000", "--tasks", "20", "--seed", "3"]).status == 0)
            let progress = Recorder("")
            let run = await logstore(["sweep", url.path, "--max-age", "0s"], progress: progress)
            #expect(run.status == 0, "\(run.error)")
            let drawn = progress.current
            #expect(drawn.hasPrefix("\r["))
            #expect(drawn.contains("%  "))
            #expect(drawn.contains(" messages  removing old messages"))
            #expect(drawn.contains("giving space back"))
            #expect(drawn.hasSuffix("\r\u{1B}[K"))
            #expect(!run.output.contains("\r") && !run.output.contains("removing old messages"))
            #expect(run.output.hasPrefix("Swept \(url.path)\n"))
            #expect(run.error.isEmpty)
        }
    }

    @Test func sweepPipedOrAsJSONDrawsNoBar() async throws {
        try await withTemporaryStoreURL { url in
            #expect(await logstore(["demo", url.path, "--count", "500", "--tasks", "0", "--seed", "3"]).status == 0)
            let piped = await logstore(["sweep", url.path, "--max-age", "0s"])
            #expect(piped.status == 0 && piped.error.isEmpty && !piped.output.contains("\r"))
            // --json on a terminal: the bar goes to stderr, the line on stdout stays one JSON object.
            let progress = Recorder("")
            let json = await logstore(["sweep", url.path, "--json"], progress: progress)
            #expect(json.status == 0)
            #expect(json.output.hasPrefix("{") && json.output.split(separator: "\n").count == 1)
        }
    }

    @Test func demoDrawsABarInsteadOfSessionLines() async throws {
        try await withTemporaryStoreURL { url in
            let progress = Recorder("")
            let run = await logstore(
                ["demo", url.path, "--count", "3000", "--tasks", "30", "--sessions", "2", "--seed", "5"], progress: progress)
            #expect(run.status == 0, "\(run.error)")
            let drawn = progress.current
            #expect(drawn.hasPrefix("\r["))
            #expect(drawn.contains("] 100%  3,030 of 3,030 messages and tasks  session 2/2"))
            #expect(drawn.contains(" of 3,030 messages and tasks  session 1/2"))
            #expect(drawn.hasSuffix("\r\u{1B}[K"))
            #expect(!run.output.contains("session 1/2:") && !run.output.contains("\r"))
            #expect(run.output.contains("Demo store written."))
        }
    }

    @Test func demoPipedKeepsOneLinePerSession() async throws {
        try await withTemporaryStoreURL { url in
            let run = await logstore(["demo", url.path, "--count", "400", "--tasks", "10", "--sessions", "2", "--seed", "5"])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.hasPrefix("session 1/2: 200 messages, 5 network tasks\nsession 2/2: 200 messages, 5 network tasks\n"))
            #expect(!run.output.contains("\r") && run.error.isEmpty)
        }
    }

    @Test func aBarWithoutATotalShowsCountsAndNoPercentage() {
        let drawn = Recorder("")
        let bar = ProgressBar(output: { text in drawn.update { $0 += text } })
        bar.draw(SweepProgress(phase: .removingEmptySessions, completed: 3, total: nil))
        #expect(drawn.current == "\r[" + String(repeating: "?", count: 30) + "]  3 sessions  removing empty sessions\u{1B}[K")
        bar.draw(SweepProgress(phase: .droppingBodies, completed: 500, total: 2_000))
        #expect(drawn.current.hasSuffix("\r[#######-----------------------]  25%  500 of 2,000 bytes  dropping bodies\u{1B}[K"))
        bar.draw(SweepProgress(phase: .finished, completed: 0, total: 0))
        bar.finish()
        #expect(drawn.current.hasSuffix("\r\u{1B}[K"))
    }
}
