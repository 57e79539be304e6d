import Foundation
import LogStore
import Testing

/// The console's level filter and order in headless Chromium, agreeing with `logstore messages`
/// and the exported page: `#messages?level=warning+` (the documented form, whose `+` reaches the
/// page as a space) means warning and above, a range `info...error` works, the level menu shows
/// the level in force; the list is newest first, with a button that says the order in force.
///
/// Serialized: a browser takes both cores for a moment.
@Suite("Console's levels and order in a browser", .serialized)
struct ConsoleLevelAndOrderBrowserTests {
    /// 21 messages, one second apart, oldest first: three per level from trace to critical.
    func record(_ store: LogStore) async throws {
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        for level in LogStore.Level.allCases {
            for index in 0..<3 {
                store.storeMessage(createdAt: start.addingTimeInterval(Double(Int(level.rawValue) * 3 + index)),
                                   label: "cache", level: level, message: "\(level.name) \(index)")
            }
        }
        try await store.flush()
    }

    /// Opens `fragment` and waits until the list has loaded (rows, or the status saying why none).
    func show(_ fragment: String, in browser: ChromiumSession, console: URL) async throws {
        try await browser.open(console.absoluteString + "#" + fragment)
        try await browser.waitUntil(
            js: "document.querySelectorAll('table.messages tbody tr[data-id]').length > 0 || document.getElementById('status').textContent !== ''",
            seconds: 15)
    }

    func status(_ browser: ChromiumSession) async throws -> String {
        try await browser.evaluate("document.getElementById('status').textContent") ?? ""
    }

    @Test(.enabled(if: Chromium.path != nil, "skipped: needs chromium (apt-get install chromium; .ci/run installs it)"))
    func aLevelMeansThatLevelAndAboveHoweverThePlusArrives() async throws {
        try await withTemporaryStore { store, url in
            try await record(store)
            try await ConsoleBrowserTests().withConsoleInBrowser(store, in: url.deletingLastPathComponent()) { console, browser in
                let newestWarningAndAbove = ["critical 2", "critical 1", "critical 0", "error 2", "error 1", "error 0",
                                             "warning 2", "warning 1", "warning 0"]
                for fragment in ["messages?level=warning+", "messages?level=warning%2B", "messages?level=warning", "messages?level=WARN+"] {
                    try await show(fragment, in: browser, console: console.url)
                    #expect(try await status(browser) == "", "at #\(fragment)")
                    #expect(try await ConsoleBrowserTests().messageRows(browser).map(\.text) == newestWarningAndAbove, "at #\(fragment)")
                    #expect(try await browser.evaluate("document.querySelector('select[name=level]').value") == "warning", "at #\(fragment)")
                }

                // A range, shown in the menu as an entry of its own.
                try await show("messages?level=info...error", in: browser, console: console.url)
                let rows = try await ConsoleBrowserTests().messageRows(browser)
                #expect(rows.map(\.level) == ["error", "error", "error", "warning", "warning", "warning",
                                              "notice", "notice", "notice", "info", "info", "info"])
                #expect(try await browser.evaluate("document.querySelector('select[name=level]').value") == "info...error")
                // Applying the filters writes the plain form back into the link.
                try await show("messages?level=warning+", in: browser, console: console.url)
                _ = try await browser.evaluate("document.querySelector('form.filters button[type=submit]').click()")
                try await browser.waitUntil(js: "location.hash === '#messages?level=warning'", seconds: 10)

                // Text that names no level: the API says so, nothing is filtered silently.
                try await show("messages?level=loud", in: browser, console: console.url)
                #expect(try await status(browser).contains("no level is called loud"))
                #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
            }
        }
    }

    @Test(.enabled(if: Chromium.path != nil, "skipped: needs chromium (apt-get install chromium; .ci/run installs it)"))
    func newestFirstByDefaultWithAButtonThatSaysTheOrder() async throws {
        try await withTemporaryStore { store, url in
            try await record(store)
            try await ConsoleBrowserTests().withConsoleInBrowser(store, in: url.deletingLastPathComponent()) { console, browser in
                let button = "document.getElementById('order')"
                try await show("messages", in: browser, console: console.url)
                var texts = try await ConsoleBrowserTests().messageRows(browser).map(\.text)
                #expect(texts.count == 21)
                #expect(texts.first == "critical 2" && texts.last == "trace 0")
                #expect(try await browser.evaluate("\(button).textContent") == "Sorted: newest first ⇅")
                #expect(try await browser.evaluate("\(button).title") == "Sorted newest first; click to sort oldest first")

                // A click turns it round, says so, and puts it in the link.
                _ = try await browser.evaluate("\(button).click()")
                try await browser.waitUntil(
                    js: "\(button).textContent === 'Sorted: oldest first ⇅' && document.querySelectorAll('table.messages tbody tr[data-id]').length === 21",
                    seconds: 15)
                texts = try await ConsoleBrowserTests().messageRows(browser).map(\.text)
                #expect(texts.first == "trace 0" && texts.last == "critical 2")
                #expect(try await browser.evaluate("location.hash") == "#messages?order=oldest")
                #expect(try await browser.evaluate("\(button).title") == "Sorted oldest first; click to sort newest first")

                // Following live puts new messages on top, so it sorts newest first.
                _ = try await browser.evaluate("document.getElementById('live').click()")
                try await browser.waitUntil(
                    js: "document.getElementById('live').textContent === 'Stop following' && \(button).textContent === 'Sorted: newest first ⇅'",
                    seconds: 15)
                #expect(try await browser.evaluate("location.hash") == "#messages?live=1")
                #expect(try await ConsoleBrowserTests().messageRows(browser).first?.text == "critical 2")
                #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
            }
        }
    }
}
