import Foundation
import LogStore
import Testing

/// A task's timeline in the exported page, in headless Chromium: the phases `logstore task`
/// draws (``NetworkTransactionMetrics/phases(taskEnd:)``), above all the waiting of a request
/// that timed out with no response.
@Suite("HTML page's task timeline in a browser", .serialized)
struct HTMLTaskTimelineBrowserTests {
    static let timedOutID = TaskTimelineFixture.timedOutID
    static let answeredID = TaskTimelineFixture.answeredID

    /// Each timeline row of the open task as "name|duration text|classes".
    func timeline(_ browser: ChromiumSession) async throws -> [String] {
        let text = try await browser.evaluate("""
            Array.prototype.map.call(document.querySelectorAll('#drawer-body .bar-line'), function (line) {
              return line.querySelector('.bar-name').textContent + '|' + line.querySelector('.bar-ms').textContent + '|' + line.className;
            }).join('\\n')
            """) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// The width of a phase's bar, as a percentage of the track.
    func barWidth(_ browser: ChromiumSession, phase: String) async throws -> Double {
        let text = try await browser.evaluate(
            "parseFloat(document.querySelector('#drawer-body .bar-line[data-phase=\"\(phase)\"] .bar').style.width)")
        return try #require(text.flatMap(Double.init))
    }

    @Test(.enabled(if: Chromium.path != nil, "skipped: needs chromium (apt-get install chromium; .ci/run installs it)"))
    func aTimedOutTaskShowsItsWaitingWithNoResponse() async throws {
        try await withTemporaryStore { store, url in
            let directory = url.deletingLastPathComponent()
            try await TaskTimelineFixture.record(store)
            let page = directory.appendingPathComponent("timeline.html")
            _ = try await store.export(to: page, format: .html)
            try await ChromiumSession.withBrowser(in: directory) { browser in
                try await browser.openExport(page, fragment: "task=\(Self.timedOutID.uuidString.lowercased())")
                #expect(try await timeline(browser) == TaskTimelineFixture.timedOutTimeline)
                // The waiting fills nearly the whole axis; the 1 ms request is a sliver of it.
                #expect(try await barWidth(browser, phase: "Waiting") > 99)
                #expect(try await barWidth(browser, phase: "Request") < 1)
                // Every track is as wide as the others (one time axis), the longer text too.
                let tracks = try await browser.evaluate("""
                    Array.prototype.map.call(document.querySelectorAll('#drawer-body .bar-track'),
                      function (track) { return Math.round(track.getBoundingClientRect().width); }).join(',')
                    """) ?? ""
                #expect(Set(tracks.split(separator: ",")).count == 1, "track widths \(tracks)")
                if let directory = HTMLPageLevelAndOrderBrowserTests.screenshotDirectory {
                    try await browser.screenshot(to: directory.appendingPathComponent("export-timed-out-task.png"))
                }

                // An answered task: waiting up to the first byte, then the response, and its total.
                try await browser.openExport(page, fragment: "task=\(Self.answeredID.uuidString.lowercased())")
                #expect(try await timeline(browser) == [
                    "DNS|2.0 ms|bar-line", "Connect|2.0 ms|bar-line", "TLS|5.0 ms|bar-line", "Request|1.0 ms|bar-line",
                    "Waiting|30.0 ms|bar-line", "Response|5.0 ms|bar-line", "Total|45.0 ms|bar-line",
                ])
                #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
            }
        }
    }
}
