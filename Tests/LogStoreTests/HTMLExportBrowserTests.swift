import Foundation
import LogStore
import Testing

/// The exported page in headless Chromium: the list, the filters, a task's view, and hostile
/// text that must render as text and run nothing. Skips (saying so) where `chromium` is absent;
/// `.ci/run` installs it.
@Suite("HTML export in a browser")
struct HTMLExportBrowserTests {
    /// The dumped DOM of the page at each of `fragments`, one browser at a time (a browser takes
    /// both cores for a moment; several at once would starve the tests running beside these).
    func load(_ page: URL, fragments: [String], in directory: URL) async throws -> [String] {
        var pages: [String] = []
        for (index, fragment) in fragments.enumerated() {
            let url = page.absoluteString + (fragment.isEmpty ? "" : "#" + fragment)
            let profile = directory.appendingPathComponent("chromium-profile-\(index)")
            pages.append(try await asHeavyTest { try await onOwnThread { try Chromium.dumpDOM(url, profile: profile) } })
        }
        return pages
    }

    /// The rendered part of a dumped DOM: the page without its data blocks (which hold every
    /// row, escaped) and its script.
    func rendered(_ dom: String) -> String {
        guard let blocks = dom.range(of: #"<script type="application/json""#) else { return dom }
        return String(dom[..<blocks.lowerBound])
    }

    /// Which of `needles` the DOM lacks (a short failure message, not the whole DOM).
    func missing(_ needles: [String], in dom: String) -> [String] {
        needles.filter { !dom.contains($0) }
    }

    /// The classes of the message rows the list rendered.
    func messageRows(_ dom: String) -> [String] {
        dom.matches(of: #/<div class="row (lv-[a-z]+)[^"]*"/#).map { String($0.1) }
    }

    @Test(.enabled(if: Chromium.path != nil, "skipped: needs chromium (apt-get install chromium; .ci/run installs it)"))
    func pageShowsFiltersAndTasksAndRunsNoLoggedScript() async throws {
        try await withTemporaryStore { store, url in
            let directory = url.deletingLastPathComponent()
            try await HTMLExportFixture.fill(store, count: 300)
            let target = directory.appendingPathComponent("page.html")
            _ = try await store.export(to: target, format: .html)
            let task = try #require(try await store.tasks(TaskQuery(methods: ["POST"])).tasks.first)

            // Oldest first, so the hostile messages (the first logged) are in view; errors only
            // (`error` alone is error and above).
            let pages = try await load(target, fragments: ["order=oldest", "level=error...error&q=NEEDLE", "task=\(task.id.uuidString.lowercased())"],
                                       in: directory)
            let ready = pages.map { $0.contains(#"data-ready="true""#) }
            let shown = pages.map { rendered($0) }
            let (all, needles, taskView) = (shown[0], shown[1], shown[2])

            // The script ran (so the policy's hash is right) and drew only the rows in view.
            #expect(ready == [true, true, true])
            let rows = messageRows(all)
            #expect(rows.count > 20 && rows.count < 120, "rendered \(rows.count) rows of 303")
            #expect(missing(["303 of 303 messages"], in: all).isEmpty)
            #expect(Set(rows).isSuperset(of: ["lv-trace", "lv-debug", "lv-info", "lv-error"]))

            // Hostile text is text: escaped in the DOM, no element made from it, no script run.
            #expect(missing(["&lt;img src=x onerror=\"document.title='pwned'\"&gt;"], in: all).isEmpty)
            #expect(missing(["&lt;/script&gt;&lt;script&gt;document.body.appendChild("], in: all).isEmpty)
            #expect(pages.allSatisfy { !$0.contains("<img src=\"x\"") && !$0.contains("<img src=x") })
            #expect(pages.allSatisfy { !$0.contains("id=\"pwned\"") })
            #expect(pages.allSatisfy { $0.contains("<title>LogStore export · 303 messages</title>") })

            // The level and text filters, from the fragment: only errors (45 of them: the 2 hostile
            // ones and 43 of the 300) whose text holds "needle" in any case (5: indexes 5, 75, 145, 215,
            // 285), with the match highlighted. A broken level filter shows 30, a broken text filter 45.
            #expect(missing(["5 of 303 messages"], in: needles).isEmpty)
            #expect(messageRows(needles) == Array(repeating: "lv-error", count: 5))
            #expect(missing(["<mark>needle</mark> 5 found", #"class="chip lv-error on""#], in: needles).isEmpty)
            #expect(missing(["of the fixture"], in: needles).count == 1)

            // A task's view shows its headers and its JSON body pretty-printed, hostile header as text.
            #expect(missing([#"<span class="j-key">"status"</span>: <span class="j-str">"paid"</span>"#], in: taskView).isEmpty)
            #expect(missing([#"<span class="j-str">"&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;"</span>"#], in: taskView).isEmpty)
            #expect(missing(["&lt;img src=x onerror=\"document.title='pwned'\"&gt;"], in: taskView).isEmpty)
            #expect(missing(["https://api.example.com/v1/orders?page=2"], in: taskView).isEmpty)
            #expect(missing([#"<aside id="drawer" class="drawer" aria-live="polite">"#], in: taskView).isEmpty)
        }
    }

    /// A JSON body nested 100k levels deep (valid JSON, which `JSON.parse` reads): drawing it as
    /// a tree would overflow the stack; the page loads and the task view shows it as text.
    @Test(.enabled(if: Chromium.path != nil, "skipped: needs chromium (apt-get install chromium; .ci/run installs it)"))
    func deeplyNestedJSONIsShownAsText() async throws {
        try await withTemporaryStore { store, url in
            let directory = url.deletingLastPathComponent()
            let address = try #require(URL(string: "https://api.example.com/deep"))
            let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
            store.storeRequest(NetworkRequest(url: address),
                               response: NetworkResponse(url: address, statusCode: 200, headers: ["Content-Type": "application/json"]),
                               error: nil, data: Data(deep.utf8))
            try await store.flush()
            let target = directory.appendingPathComponent("deep.html")
            _ = try await store.export(to: target, format: .html)
            let task = try #require(try await store.tasks(TaskQuery()).tasks.first)

            let page = try #require(try await load(target, fragments: ["task=\(task.id.uuidString.lowercased())"], in: directory).first)
            #expect(page.contains(#"data-ready="true""#))
            let taskView = rendered(page)
            #expect(missing([#"<pre class="code">[[[[[[[["#, "https://api.example.com/deep"], in: taskView).isEmpty)
            #expect(!taskView.contains(#"<pre class="code json">"#))
        }
    }
}
