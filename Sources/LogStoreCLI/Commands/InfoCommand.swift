import LogStore

/// `logstore info <store> [--json]`: what a store holds and how it is doing.
enum InfoCommand: Command {
    static let spec = CommandSpec(
        name: "info",
        summary: "Show what a store holds: counts, sizes, versions, dates.",
        positionals: [.init(name: "store", help: "The store directory, or an archive (.lsarchive) file.")],
        options: [.flag("json", "Print LogStore.Info as JSON (pretty, sorted keys, ISO 8601 dates).")])

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let path = arguments.positionals[0]
        let info = try await StoreAccess.withReadonlyStore(path) { try await $0.info() }
        if arguments.flag("json") {
            console.line(try JSONOutput.pretty(info))
            return
        }
        for line in lines(info, path: StoreAccess.url(path).path) { console.line(line) }
    }

    static func lines(_ info: LogStore.Info, path: String) -> [String] {
        var blobs = Format.bytes(info.blobsSize)
        if info.blobsDecompressedSize != info.blobsSize {
            blobs += " (\(Format.bytes(info.blobsDecompressedSize)) decompressed)"
        }
        var rows: [(String, String)] = [
            ("Store", path),
            ("Store ID", info.storeID.uuidString),
            ("Messages", Format.count(info.messageCount)),
            ("Search index", info.unindexedMessageCount == 0
                ? "up to date" : "\(Format.count(info.unindexedMessageCount)) messages not yet indexed (searches still find them)"),
            ("Tasks", Format.count(info.taskCount)),
            ("Blobs", Format.count(info.blobCount)),
            ("Sessions", Format.count(info.sessionCount)),
            ("Total size", Format.bytes(info.totalStoreSize)),
            ("Database size", Format.bytes(info.databaseSize)),
            ("Blobs size", blobs),
            ("Created", Format.timestamp(info.creationDate)),
            ("Modified", Format.timestamp(info.modifiedDate)),
            ("Last sweep", lastSweep(info)),
            ("Store version", info.storeVersion.description),
            ("Schema version", info.schemaVersion.description),
            ("Library version", info.libraryVersion.description),
            ("Dropped events", Format.count(info.droppedEventCount)),
            ("Write errors", Format.count(info.writeErrorCount)),
        ]
        if let lastWriteError = info.lastWriteError {
            rows.append(("Last write error", lastWriteError.description))
        }
        return Format.fields(rows)
    }

    /// The date, and on a second line what that sweep removed and reclaimed (stores swept
    /// before reports were kept have only the date).
    static func lastSweep(_ info: LogStore.Info) -> String {
        guard let date = info.lastSweepDate ?? info.lastSweep?.date else { return "never" }
        guard let report = info.lastSweep else { return Format.timestamp(date) }
        return Format.timestamp(date) + "\n" + SweepFormat.summary(report)
    }
}
