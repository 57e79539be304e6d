import LogStore

/// `logstore info <store> [--json]`: what a store holds and how it is doing.
enum InfoCommand: Command {
    static let spec = CommandSpec(
        name: "info",
        summary: "Show what a store holds: counts, sizes, versions, dates.",
        positionals: [.init(name: "store", help: "The store directory, or an archive (.lsarchive) file.")],
        options: [json],
        discussion: """
            Sizes are the files on disk: the database (logs.sqlite and its WAL, with the bodies
            small enough to be inline) and the body files under blobs/; the total is their sum.
            The store format is the directory's layout (manifest.json); the SQL schema is the
            database's version (PRAGMA user_version), which newer libraries migrate forward.

            Examples:
              logstore info app.logstore
              logstore info incident.lsarchive
              logstore info app.logstore --json | jq .totalStoreSize
            """)

    static let json = FlagOption("json", "Print LogStore.Info as JSON (pretty, sorted keys, ISO 8601 dates in UTC).")

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let path = arguments.positionals[0]
        let info = try await StoreAccess.withReadonlyStore(path) { try await $0.info() }
        if arguments.flag(json) {
            console.line(try JSONOutput.pretty(info))
            return
        }
        for line in lines(info, path: StoreAccess.url(path).path, style: console.style) { console.line(line) }
    }

    static func lines(_ info: LogStore.Info, path: String, style: TextStyle) -> [String] {
        var blobs = "\(Format.count(info.blobCount)), \(Format.bytes(info.blobsSize)) stored"
        if info.blobsDecompressedSize != info.blobsSize {
            blobs += " (\(Format.bytes(info.blobsDecompressedSize)) decompressed)"
        }
        // The sizes are the files on disk, so that the total is their sum; the blobs' own size
        // (inline ones live in the database) is on the Blobs line.
        var rows: [(String, String)] = [
            ("Store", Format.escaped(path)),
            ("Store ID", info.storeID.uuidString),
            ("Messages", Format.count(info.messageCount)),
            ("Search index", info.unindexedMessageCount == 0
                ? "up to date" : "\(Format.count(info.unindexedMessageCount)) messages not yet indexed (searches still find them)"),
            ("Tasks", Format.count(info.taskCount)),
            ("Blobs", blobs),
            ("Sessions", Format.count(info.sessionCount)),
            ("Database size", Format.bytes(info.databaseSize) + " (logs.sqlite and its WAL, inline blobs included)"),
            ("Body files size", Format.bytes(info.blobFilesSize) + " (blobs/: bodies too large to be inline)"),
            ("Total size", Format.bytes(info.totalStoreSize) + " (database + body files)"),
            ("Created", style.time(info.creationDate)),
            ("Modified", style.time(info.modifiedDate)),
            ("Last sweep", lastSweep(info, style: style)),
            ("Store format", "\(info.storeVersion) (the directory's layout, from manifest.json)"),
            ("SQL schema", "\(info.schemaVersion.major) (PRAGMA user_version of logs.sqlite)"),
            ("Library version", "\(info.libraryVersion) (the LogStore reading it)"),
            ("Dropped events", Format.count(info.droppedEventCount)),
            ("Write errors", Format.count(info.writeErrorCount)),
        ]
        if info.historyGapCount > 0 {
            rows.append(("History gaps", "\(Format.count(info.historyGapCount)) rows deleted by the size limit before a consumer read them"))
        }
        if let lastWriteError = info.lastWriteError {
            rows.append(("Last write error", Format.escaped(lastWriteError.description)))
        }
        return Format.fields(rows)
    }

    /// The date, and on a second line what that sweep removed and reclaimed (stores swept
    /// before reports were kept have only the date).
    static func lastSweep(_ info: LogStore.Info, style: TextStyle) -> String {
        guard let date = info.lastSweepDate ?? info.lastSweep?.date else { return "never" }
        guard let report = info.lastSweep else { return style.time(date) }
        return style.time(date) + "\n" + SweepFormat.summary(report)
    }
}
