import Foundation
import LogStore
import Testing

/// The exported page's level filter and sort order in headless Chromium: `level=` means what the
/// CLI's `--level` means (that level and above, or a range), the documented `warning+` form
/// works however the `+` arrives, the level chips write the same form, and the page lists newest
/// first, as `logstore messages` does, with a button that says the order in force.
///
/// Serialized: a browser takes both cores for a moment.
@Suite("HTML page's levels and order in a browser", .serialized)
struct HTMLPageLevelAndOrderBrowserTests {
    /// 21 messages, one second apart, oldest first: three per level from trace to critical, the
    /// first two of each saying "redis".
    func exportPage(_ store: LogStore, in directory: URL) async throws -> URL {
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        for level in LogStore.Level.allCases {
            for index in 0..<3 {
                let second = Double(Int(level.rawValue) * 3 + index)
                store.storeMessage(createdAt: start.addingTimeInterval(second), label: "cache", level: level,
                                   message: index < 2 ? "redis \(level.name) \(index)" : "other \(level.name)")
            }
        }
        try await store.flush()
        let page = directory.appendingPathComponent("incident.html")
        _ = try await store.export(to: page, format: .html)
        return page
    }

    /// The levels of the rows the list shows, top first.
    func rowLevels(_ browser: ChromiumSession) async throws -> [String] {
        let text = try await browser.evaluate("""
            Array.prototype.map.call(document.querySelectorAll('#list .row'),
              function (row) { return row.querySelector('.c-level').textContent; }).join(',')
            """) ?? ""
        return text.isEmpty ? [] : text.split(separator: ",").map(String.init)
    }

    /// The text of the rows the list shows, top first.
    func rowTexts(_ browser: ChromiumSession) async throws -> [String] {
        let text = try await browser.evaluate("""
            Array.prototype.map.call(document.querySelectorAll('#list .row'),
              function (row) { return row.querySelector('.c-text').textContent; }).join('|')
            """) ?? ""
        return text.isEmpty ? [] : text.split(separator: "|").map(String.init)
    }

    @Test(.enabled(if: Chromium.path != nil, "skipped: needs chromium (apt-get install chromium; .ci/run installs it)"))
    func aLevelMeansThatLevelAndAboveHoweverThePlusArrives() async throws {
        try await withTemporaryStore { store, url in
            let directory = url.deletingLastPathComponent()
            let page = try await exportPage(store, in: directory)
            try await ChromiumSession.withBrowser(in: directory) { browser in
                // The documented link: a bare `+` reaches the page as a space, `%2B` as a `+`;
                // both, and no suffix at all, mean warning and above (warning alone shows 2).
                for fragment in ["level=warning+&q=redis", "level=warning%2B&q=redis", "level=warning&q=redis", "level=WARN+&q=REDIS"] {
                    try await browser.openExport(page, fragment: fragment)
                    #expect(try await browser.text(ofElement: "shown") == "6 of 21 messages", "at #\(fragment)")
                    #expect(try await rowLevels(browser) == ["critical", "critical", "error", "error", "warning", "warning"],
                            "at #\(fragment)")
                }
                if let directory = Self.screenshotDirectory {
                    try await browser.openExport(page, fragment: "level=warning+&q=redis")
                    try await browser.screenshot(to: directory.appendingPathComponent("export-level-warning-plus.png"))
                }

                // As the CLI's --level: error is error and above, a range is a range.
                try await browser.openExport(page, fragment: "level=error")
                #expect(try await browser.text(ofElement: "shown") == "6 of 21 messages")
                #expect(Set(try await rowLevels(browser)) == ["error", "critical"])
                try await browser.openExport(page, fragment: "level=error...error")
                #expect(try await rowLevels(browser) == ["error", "error", "error"])
                try await browser.openExport(page, fragment: "level=debug...info")
                #expect(Set(try await rowLevels(browser)) == ["debug", "info"])
                // A link an earlier version wrote (a list of levels) shows from its lowest up;
                // an unknown level filters nothing.
                try await browser.openExport(page, fragment: "level=warning,error,critical")
                #expect(try await browser.text(ofElement: "shown") == "9 of 21 messages")
                try await browser.openExport(page, fragment: "level=loud")
                #expect(try await browser.text(ofElement: "shown") == "21 of 21 messages")
                #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
            }
        }
    }

    @Test(.enabled(if: Chromium.path != nil, "skipped: needs chromium (apt-get install chromium; .ci/run installs it)"))
    func theChipsWriteTheSameLevelForm() async throws {
        try await withTemporaryStore { store, url in
            let directory = url.deletingLastPathComponent()
            let page = try await exportPage(store, in: directory)
            try await ChromiumSession.withBrowser(in: directory) { browser in
                try await browser.openExport(page, fragment: "")
                let chip = "document.querySelector('#levels [data-level=\"4\"]')"
                // A click: warning and above, written as the CLI spells it.
                #expect(try await browser.evaluate("\(chip).click(); location.hash") == "#level=warning")
                #expect(try await browser.text(ofElement: "shown") == "9 of 21 messages")
                #expect(try await browser.evaluate("document.querySelectorAll('#levels .chip.on').length") == "3")
                // A shift-click: warning only, as a range.
                #expect(try await browser.evaluate(
                    "\(chip).dispatchEvent(new MouseEvent('click', { bubbles: true, shiftKey: true })); location.hash")
                    == "#level=warning...warning")
                #expect(try await rowLevels(browser) == ["warning", "warning", "warning"])
                // Clicking the lowest level shown again shows every level.
                _ = try await browser.evaluate("\(chip).click()")
                #expect(try await browser.evaluate("\(chip).click(); location.hash") == "")
                #expect(try await browser.text(ofElement: "shown") == "21 of 21 messages")
            }
        }
    }

    @Test(.enabled(if: Chromium.path != nil, "skipped: needs chromium (apt-get install chromium; .ci/run installs it)"))
    func thePageListsNewestFirstAndSaysSo() async throws {
        try await withTemporaryStore { store, url in
            let directory = url.deletingLastPathComponent()
            let page = try await exportPage(store, in: directory)
            try await ChromiumSession.withBrowser(in: directory) { browser in
                try await browser.openExport(page, fragment: "")
                #expect(try await browser.text(ofElement: "order") == "Sorted: newest first ⇅")
                #expect(try await browser.evaluate("document.getElementById('order').title")
                        == "Sorted newest first; click to sort oldest first")
                #expect(try await rowTexts(browser).prefix(2) == ["other critical", "redis critical 1"])

                // The button changes the order and then says the new one; the link keeps it.
                #expect(try await browser.evaluate("document.getElementById('order').click(); location.hash") == "#order=oldest")
                #expect(try await browser.text(ofElement: "order") == "Sorted: oldest first ⇅")
                #expect(try await rowTexts(browser).prefix(2) == ["redis trace 0", "redis trace 1"])
                try await browser.openExport(page, fragment: "order=oldest")
                #expect(try await rowTexts(browser).first == "redis trace 0")
                // Links written before newest first was the default still say what they show.
                try await browser.openExport(page, fragment: "order=newest")
                #expect(try await rowTexts(browser).first == "other critical")
                #expect(try await browser.text(ofElement: "order") == "Sorted: newest first ⇅")
            }
        }
    }

    /// Where `LOGSTORE_EXPORT_SCREENSHOTS` asks screenshots of the page to go; unset in a normal run.
    static let screenshotDirectory = ProcessInfo.processInfo.environment["LOGSTORE_EXPORT_SCREENSHOTS"]
        .map { URL(fileURLWithPath: $0, isDirectory: true) }
}
