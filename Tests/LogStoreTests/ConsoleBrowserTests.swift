import Foundation
import LogStore
import LogStoreConsole
import LogStoreDemo
import Testing

/// The live console in headless Chromium, driven over the DevTools pipe (``ChromiumSession``):
/// the live tail as another process logs, the filters, a task's view with a hostile body, and
/// (on request) the screenshots of the docs. Skips, saying so, where `chromium` is absent.
///
/// Serialized: a browser takes both cores for a moment, and two at once would starve the tests
/// running beside these.
@Suite("Console in a browser", .serialized)
struct ConsoleBrowserTests {
    /// Starts a console over `store`, runs `body` with it and a browser (profile under
    /// `directory`), then closes the browser and stops the console, whether `body` threw or not.
    func withConsoleInBrowser<T>(
        _ store: LogStore, in directory: URL, _ body: (LogStoreConsole, ChromiumSession) async throws -> T
    ) async throws -> T {
        let console = try await LogStoreConsole.start(store: store)
        let result: T
        do {
            result = try await ChromiumSession.withBrowser(in: directory) { try await body(console, $0) }
        } catch {
            await console.stop()
            throw error
        }
        await console.stop()
        return result
    }

    /// The label and text of every message row the page shows, top (newest) first.
    func messageRows(_ browser: ChromiumSession) async throws -> [(level: String, label: String, text: String)] {
        let json = try #require(try await browser.evaluate("""
            JSON.stringify([...document.querySelectorAll('table.messages tbody tr[data-id]')].map((row) =>
              [row.querySelector('td.level').textContent, row.querySelector('td.label').textContent,
               row.querySelector('td.text').textContent]))
            """))
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String]])
        return try rows.map { row in
            try #require(row.count == 3)
            return (row[0], row[1], row[2])
        }
    }

    @Test(.enabled(if: Chromium.path != nil, "skipped: needs chromium (apt-get install chromium; .ci/run installs it)"))
    func theLiveTailShowsWhatAnotherProcessLogs() async throws {
        try await withTemporaryStore { store, url in
            try await withConsoleInBrowser(store, in: url.deletingLastPathComponent()) { console, browser in
                try await browser.open(console.url.absoluteString + "#messages?live=1&label=child")
                // Following once the EventSource is open (readyState 1: the tail answered), so
                // the tail starts before the child's first message. `state` is the page
                // script's own (a top-level const, visible to evaluated scripts).
                try await browser.waitUntil(
                    js: "document.getElementById('live').textContent === 'Stop following' && state.live !== null && state.live.readyState === 1",
                    seconds: 15)

                let count = 300
                let child = try await SpawnedProcess.run(
                    testHelperExecutable, ["writers", url.path, "\(count)", "child"], seconds: 60)
                #expect(child.status == 0, "\(child.output)")
                try await browser.waitUntil(
                    js: "document.querySelectorAll('table.messages tbody tr[data-id]').length >= \(count)", seconds: 20)

                let rows = try await messageRows(browser)
                #expect(rows.count == count)
                #expect(rows.allSatisfy { $0.label == "child" })
                // Newest first: the last message logged is the top row.
                #expect(rows.map(\.text) == (0..<count).reversed().map { "child \($0)" })
                #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
            }
        }
    }

    @Test(.enabled(if: Chromium.path != nil, "skipped: needs chromium (apt-get install chromium; .ci/run installs it)"))
    func filtersAndATaskRenderAsTextAndRunNothing() async throws {
        try await withTemporaryStore { store, url in
            let levels: [LogStore.Level] = [.debug, .info, .warning, .error, .critical]
            let labels = ["http", "db", "auth"]
            for index in 0..<60 {
                store.storeMessage(
                    label: labels[index % labels.count], level: levels[index % levels.count],
                    message: "message \(index) <img src=x onerror=\"window.__pwned=1\">")
            }
            let hostile = #"<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>"#
            let endpoint = try #require(URL(string: "https://api.example.com/v1/orders"))
            store.storeRequest(
                NetworkRequest(url: endpoint, method: "POST"),
                response: NetworkResponse(url: endpoint, statusCode: 201, headers: ["Content-Type": "text/html"]),
                error: nil, data: Data(hostile.utf8), metrics: nil)
            try await store.flush()

            try await withConsoleInBrowser(store, in: url.deletingLastPathComponent()) { console, browser in
                // `level=error` means error and above: 12 error and 12 critical rows of 60 (the
                // task's own message is a debug one).
                try await browser.open(console.url.absoluteString + "#messages?level=error")
                try await browser.waitUntil(
                    js: "document.querySelectorAll('table.messages tbody tr[data-id]').length > 0", seconds: 15)
                let rows = try await messageRows(browser)
                #expect(rows.count == 24)
                #expect(Set(rows.map(\.level)) == ["error", "critical"])
                #expect(rows.allSatisfy { $0.text.hasSuffix(#"<img src=x onerror="window.__pwned=1">"#) })
                #expect(try await browser.evaluate("document.querySelectorAll('table.messages img').length") == "0")

                // The task: through the page's own navigation, then a click on its row.
                _ = try await browser.evaluate("location.hash = '#tasks'")
                try await browser.waitUntil(js: "document.querySelector('table.tasks tbody tr') !== null", seconds: 15)
                _ = try await browser.evaluate("document.querySelector('table.tasks tbody tr').click()")
                try await browser.waitUntil(js: "document.querySelector('aside#details h2') !== null", seconds: 15)
                #expect(try await browser.evaluate("document.querySelector('aside#details h2').textContent") == "POST 201")
                #expect(try await browser.evaluate("document.querySelector('aside#details p.url').textContent") == endpoint.absoluteString)
                try await browser.waitUntil(js: "document.querySelector('aside#details pre.body') !== null", seconds: 15)
                #expect(try await browser.evaluate("document.querySelector('aside#details pre.body').textContent") == hostile)
                #expect(try await browser.evaluate("document.querySelectorAll('aside#details img, aside#details script').length") == "0")
                // Neither the messages nor the body ran anything (an onerror fires as soon as
                // the image fails, long before this).
                #expect(try await browser.evaluate("window.__pwned") == nil)
                #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
            }
        }
    }

    /// Where `LOGSTORE_CONSOLE_SCREENSHOTS` asks the screenshots of the docs to go; unset in a
    /// normal run, so the test below skips.
    static let screenshotDirectory = ProcessInfo.processInfo.environment["LOGSTORE_CONSOLE_SCREENSHOTS"]
        .flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }

    /// Writes console-messages.png, console-task.png and console-host.png of a small demo store
    /// (the one `logstore demo` writes, with a fixed seed) into `LOGSTORE_CONSOLE_SCREENSHOTS`.
    @Test(.enabled(if: Chromium.path != nil && screenshotDirectory != nil,
                   "skipped: set LOGSTORE_CONSOLE_SCREENSHOTS=DIR to write the console's screenshots"))
    func screenshotsForTheDocs() async throws {
        let output = try #require(Self.screenshotDirectory)
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        try await withTemporaryStoreURL { url in
            var writer = DemoWriter(url: url, count: 3_000, sessions: 3, seed: 7, end: Date())
            writer.tasks = 120
            _ = try await writer.write { _ in }
            // Read-only, as `logstore serve` opens it: no session of this process among the demo's.
            try await withStore(at: url, options: [.readonly]) { store in
                try await withConsoleInBrowser(store, in: url.deletingLastPathComponent()) { console, browser in
                    try await browser.open(console.url.absoluteString + "#messages")
                    try await browser.waitUntil(
                        js: "document.querySelectorAll('table.messages tbody tr[data-id]').length > 0"
                            + " && document.querySelectorAll('.histogram .bar').length > 0",
                        seconds: 20)
                    // A message with metadata selected, so its details show beside the list.
                    _ = try await browser.evaluate("""
                        (document.querySelector('table.messages tbody tr.level-warning') ||
                         document.querySelector('table.messages tbody tr[data-id]')).click()
                        """)
                    try await browser.waitUntil(js: "document.querySelector('aside#details h2') !== null", seconds: 15)
                    try await browser.screenshot(to: output.appendingPathComponent("console-messages.png"))

                    _ = try await browser.evaluate("location.hash = '#tasks'")
                    try await browser.waitUntil(js: "document.querySelector('table.tasks tbody tr') !== null", seconds: 15)
                    // A task that got a 200 with a body (the newest ones are often still pending).
                    // In a function: a top-level `const` would stay declared in the page.
                    _ = try await browser.evaluate("""
                        ((rows) => (rows.find((row) => row.cells[2].textContent === '200'
                          && !['', '0 B'].includes(row.cells[5].textContent)) || rows[0]).click())(
                          [...document.querySelectorAll('table.tasks tbody tr')])
                        """)
                    try await browser.waitUntil(
                        js: "document.querySelector('aside#details h2') !== null"
                            + " && document.querySelectorAll('aside#details pre.body, aside#details img').length > 0",
                        seconds: 15)
                    try await browser.screenshot(to: output.appendingPathComponent("console-task.png"))

                    _ = try await browser.evaluate("location.hash = '#host'")
                    try await browser.waitUntil(
                        js: "document.querySelector('.host-now dl') !== null && document.querySelector('table.sessions') !== null",
                        seconds: 15)
                    try await browser.screenshot(to: output.appendingPathComponent("console-host.png"))
                    #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
                }
            }
        }
    }
}
