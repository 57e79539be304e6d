import Foundation
import LogStore
import Testing

/// A task's timeline in the exported page, in headless Chromium: the phases `logstore task`
/// draws (``NetworkTransactionMetrics/phases(taskEnd:)``), above all the waiting of a request
/// that timed out with no response.
@Suite("HTML page's task timeline in a browser", .serialized)
struct HTMLTaskTimelineBrowserTests {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)
    static func at(_ milliseconds: Double) -> Date { start.addingTimeInterval(milliseconds / 1000) }
    static let timedOutID = UUID(uuidString: "00000000-0000-4000-8000-00000000000a")!
    static let answeredID = UUID(uuidString: "00000000-0000-4000-8000-00000000000b")!

    /// Two GETs over new TLS connections: one answered after 45 ms, one that sent its request
    /// in 1 ms and then gave up after 10 s without a response (as a `URLSession` timeout ends).
    func record(_ store: LogStore) async throws {
        let logger = NetworkLogger(store: store)
        for (id, answered) in [(Self.answeredID, true), (Self.timedOutID, false)] {
            let url = URL(string: "https://cache.example.com/\(answered ? "fast" : "slow")")
            let request = NetworkRequest(url: url, method: "GET")
            let response = answered ? NetworkResponse(url: url, statusCode: 200) : nil
            let end = answered ? Self.at(50) : Self.at(10_010)
            logger.logTaskCreated(taskID: id, request: request, createdAt: Self.at(0))
            let transaction = NetworkTransactionMetrics(
                fetchType: .networkLoad, request: request, response: response, fetchStart: Self.at(0),
                domainLookupStart: Self.at(0), domainLookupEnd: Self.at(2), connectStart: Self.at(2), connectEnd: Self.at(9),
                secureConnectionStart: Self.at(4), secureConnectionEnd: Self.at(9), requestStart: Self.at(9),
                requestEnd: Self.at(10), responseStart: answered ? Self.at(40) : nil, responseEnd: answered ? Self.at(45) : nil)
            logger.logMetrics(taskID: id, metrics: NetworkMetrics(
                taskInterval: DateInterval(start: Self.at(0), end: end), transactions: [transaction]))
            logger.logTaskCompleted(
                taskID: id, response: response,
                error: answered ? nil : URLError(.timedOut), completedAt: end)
        }
        try await store.flush()
    }

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
            try await record(store)
            let page = directory.appendingPathComponent("timeline.html")
            _ = try await store.export(to: page, format: .html)
            try await ChromiumSession.withBrowser(in: directory) { browser in
                try await browser.openExport(page, fragment: "task=\(Self.timedOutID.uuidString.lowercased())")
                // As `logstore task` shows it: the request took 1 ms, then 10,000 ms of waiting
                // that no response ended (and no Total: the transaction has no end of its own).
                #expect(try await timeline(browser) == [
                    "DNS|2.0 ms|bar-line", "Connect|2.0 ms|bar-line", "TLS|5.0 ms|bar-line", "Request|1.0 ms|bar-line",
                    "Waiting|10,000 ms, no response|bar-line no-response",
                ])
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
