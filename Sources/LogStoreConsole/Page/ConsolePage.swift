/// The console's page: one HTML document, its script and its style, served from the binary
/// (ConsolePage.js and ConsolePage.css beside this file are embedded at build time as
/// ``ConsolePageAssets``). The script builds every node with `createElement` and
/// `textContent`: logged text is never parsed as markup.
enum ConsolePage {
    /// The document; `hasFiles` shows the Files tab.
    static func html(hasFiles: Bool) -> HTTPResponse {
        let markup = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>LogStore console</title>
            <link rel="stylesheet" href="console.css">
            <script src="console.js" defer></script>
            </head>
            <body data-files="\(hasFiles ? "1" : "0")">
            <noscript>The console needs JavaScript; its API answers without it (see api/messages).</noscript>
            </body>
            </html>
            """
        return ResponseHeaders.response(contentType: "text/html; charset=utf-8", Array(markup.utf8))
    }

    /// The script.
    static let script = ResponseHeaders.response(
        contentType: "text/javascript; charset=utf-8", Array(ConsolePageAssets.script.utf8))

    /// The style.
    static let style = ResponseHeaders.response(contentType: "text/css; charset=utf-8", Array(ConsolePageAssets.style.utf8))
}

/// The page's script and style, as text (generated from ConsolePage.js and ConsolePage.css).
enum ConsolePageAssets {}
