import Foundation

/// The page's fixed parts, in the order the exporter writes them around the data blocks.
enum HTMLPage {
    /// The policy: nothing from the network (`default-src 'none'` covers scripts, styles, fonts,
    /// images, frames and `fetch`), only the page's own script, found by its hash (an injected
    /// `<script>` or `onerror=` attribute does not run), inline styles, and `data:` images for the
    /// embedded image bodies; no `<base>` and no form posts.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'sha256-\(scriptHash)'; style-src 'unsafe-inline'; img-src data:; "
        + "base-uri 'none'; form-action 'none'"

    /// The base64 SHA-256 of the script's text, as CSP hash sources spell it.
    static let scriptHash = Data(SHA256.hash(Array(HTMLPageScript.source.utf8))).base64EncodedString()

    /// Everything up to the opening of the first data block (the export's facts).
    static let head = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="\(contentSecurityPolicy)">
        <meta name="referrer" content="no-referrer">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="LogStore \(LogStore.Version.library)">
        <title>LogStore export</title>
        <style>
        \(HTMLPageStyle.css)
        </style>
        </head>
        <body>
        \(HTMLPageMarkup.body)
        <script type="application/json" id="ls-meta">
        """

    /// Closes the facts and opens the messages: an array of rows (``HTMLMessageRow``).
    static let messagesOpening = """
        </script>
        <script type="application/json" id="ls-messages">[
        """

    /// Closes the messages and opens the tasks: an array of objects (``HTMLTaskRow``).
    static let tasksOpening = """
        ]</script>
        <script type="application/json" id="ls-tasks">[
        """

    /// Closes the tasks and opens the label and session tables (``HTMLTables``).
    static let tablesOpening = """
        ]</script>
        <script type="application/json" id="ls-tables">
        """

    /// Closes the tables, then the script and the document.
    static let tail = """
        </script>
        <script>\(HTMLPageScript.source)</script>
        </body>
        </html>

        """
}
