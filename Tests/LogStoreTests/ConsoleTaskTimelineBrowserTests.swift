import Foundation
import LogStore
import Testing

/// A task's timeline in the console, in headless Chromium: the phases the API sends
/// (``NetworkTransactionMetrics/phases(taskEnd:)``, as `logstore task` and the exported page
/// draw them), above all the waiting of a request that timed out with no response.
///
/// Serialized: a browser takes both cores for a moment.
@Suite("Console's task timeline in a browser", .serialized)
struct ConsoleTaskTimelineBrowserTests {
    /// Each timeline row of the open task as "name|duration text|classes".
    func timeline(_ browser: ChromiumSession) async throws -> [String] {
        let text = try await browser.evaluate("""
            [...document.querySelectorAll('aside#details .waterfall .bar-line')].map((line) =>
              line.querySelector('.bar-name').textContent + '|' + line.querySelector('.bar-ms').textContent + '|' + line.className
            ).join('\\n')
            """) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// The width of a phase's bar, as a percentage of its track.
    func barWidth(_ browser: ChromiumSession, phase: String) async throws -> Double {
        let text = try await browser.evaluate(
            "parseFloat(document.querySelector('aside#details .bar-line[data-phase=\"\(phase)\"] .bar').style.width)")
        return try #require(text.flatMap(Double.init))
    }

    /// Opens a task by its permalink and waits for its timeline.
    func openTask(_ id: UUID, in browser: ChromiumSession, console: URL) async throws {
        try await browser.open(console.absoluteString + "#tasks?task=\(id.uuidString)")
        try await browser.waitUntil(js: "document.querySelectorAll('aside#details .waterfall .bar-line').length > 0", seconds: 15)
    }

    @Test(.enabled(if: Chromium.path != nil, "skipped: needs chromium (apt-get install chromium; .ci/run installs it)"))
    func aTimedOutTaskShowsItsWaitingWithNoResponse() async throws {
        try await withTemporaryStore { store, url in
            try await TaskTimelineFixture.record(store)
            try await ConsoleBrowserTests().withConsoleInBrowser(store, in: url.deletingLastPathComponent()) { console, browser in
                try await openTask(TaskTimelineFixture.timedOutID, in: browser, console: console.url)
                #expect(try await timeline(browser) == TaskTimelineFixture.timedOutTimeline)
                // The waiting fills nearly the whole axis; the 1 ms request is a sliver of it.
                #expect(try await barWidth(browser, phase: "Waiting") > 99)
                #expect(try await barWidth(browser, phase: "Request") < 1)
                // Every track is as wide as the others (one time axis).
                let tracks = try await browser.evaluate("""
                    [...document.querySelectorAll('aside#details .bar-track')].map((track) =>
                      Math.round(track.getBoundingClientRect().width)).join(',')
                    """) ?? ""
                #expect(Set(tracks.split(separator: ",")).count == 1, "track widths \(tracks)")
                if let directory = ConsoleBrowserTests.screenshotDirectory {
                    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                    try await browser.screenshot(to: directory.appendingPathComponent("console-timed-out-task.png"))
                }

                // An answered task: waiting up to the first byte, then the response, and its total.
                try await openTask(TaskTimelineFixture.answeredID, in: browser, console: console.url)
                #expect(try await timeline(browser) == [
                    "DNS|2.0 ms|bar-line", "Connect|2.0 ms|bar-line", "TLS|5.0 ms|bar-line", "Request|1.0 ms|bar-line",
                    "Waiting|30.0 ms|bar-line", "Response|5.0 ms|bar-line", "Total|45.0 ms|bar-line",
                ])
                #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
            }
        }
    }
}
