import Foundation
import Testing
@testable import LogStore

/// The viewer's script and style live in .js and .css files and reach the binary as constants
/// generated at build time (the EmbedViewerAssets plugin): the constants must be the files, and
/// an exported page must carry them.
@Suite("HTML page assets")
struct HTMLPageAssetsTests {
    /// Sources/LogStore/Export/HTML, found from this file's path (the checkout the tests were built from).
    static let assetDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/LogStore/Export/HTML")

    /// A file's text as the generator embeds it: everything but one final newline.
    static func embedded(_ name: String) throws -> String {
        var text = try String(contentsOf: assetDirectory.appendingPathComponent(name), encoding: .utf8)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    @Test func theConstantsAreTheFiles() throws {
        #expect(HTMLPageScript.source == (try Self.embedded("HTMLPageScript.js")))
        #expect(HTMLPageStyle.css == (try Self.embedded("HTMLPageStyle.css")))
        // Not an empty or placeholder file: the script's start and end, the style's first rule.
        #expect(HTMLPageScript.source.hasPrefix("(function () {\n  'use strict';"))
        #expect(HTMLPageScript.source.hasSuffix("})();"))
        #expect(HTMLPageStyle.css.hasPrefix(":root {"))
    }

    @Test func anExportedPageCarriesTheScriptAndTheStyle() async throws {
        try await withTemporaryStore { store, url in
            try await HTMLExportFixture.fill(store, count: 5)
            let (_, text) = try await HTMLExportFixture.export(store, to: url.deletingLastPathComponent())
            #expect(text.contains("<style>\n" + HTMLPageStyle.css + "\n</style>"))
            #expect(text.contains("<script>" + HTMLPageScript.source + "</script>"))
            #expect(HTMLPageText(text: text).script == HTMLPageScript.source)
        }
    }
}
