import LogStore

/// `logstore blobs <store> [--limit N] [--json]`: the stored bodies, largest first.
enum BlobsCommand: Command {
    static let spec = CommandSpec(
        name: "blobs",
        summary: "List stored bodies (blobs), largest first: sizes, compression, links, inline or file.",
        positionals: [.init(name: "store", help: "The store directory, or an archive (.lsarchive) file.")],
        options: [limit, json],
        discussion: """
            Each body is stored once under the SHA-1 of its (redacted) bytes, however many tasks
            sent or received it: LINKS counts them. Bodies are zlib-compressed when that makes
            them smaller (RATIO is decompressed / stored); up to 16 KiB stored they live in the
            database (inline), larger ones in files under <store>/blobs/.

            Examples:
              logstore blobs app.logstore
              logstore blobs app.logstore --limit 5 --json
            """)

    static let limit = ValueOption("limit", "n", "The most blobs to print (default \(defaultLimit)).")
    static let json = FlagOption("json", "Print NDJSON: one BlobSummary object per blob.")

    static let defaultLimit = 50

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let limit = try arguments.value(Self.limit).map { v throws(UsageError) in
            try ValueParsers.integer(v, option: Self.limit.name, in: 1...Paging.maximumLimit)
        } ?? defaultLimit
        let (blobs, info) = try await StoreAccess.withReadonlyStore(arguments.positionals[0]) { store in
            (try await store.blobs(limit: limit), try await store.info())
        }
        if arguments.flag(json) {
            for blob in blobs { console.line(try JSONOutput.line(blob)) }
            if info.blobCount > blobs.count {
                console.errorLine("logstore: \(Format.count(info.blobCount - blobs.count)) more blobs: raise --limit to see them")
            }
            return
        }
        if blobs.isEmpty {
            console.line("No blobs.")
            return
        }
        var table = Table(columns: [
            Table.Column(header: "KEY"), Table.Column(header: "STORED", alignment: .right),
            Table.Column(header: "DECOMPRESSED", alignment: .right), Table.Column(header: "RATIO", alignment: .right),
            Table.Column(header: "LINKS", alignment: .right), Table.Column(header: "WHERE"),
        ])
        table.rows = blobs.map { blob in
            [
                blob.key, Format.bytes(blob.size), Format.bytes(blob.decompressedSize), ratio(blob),
                Format.count(blob.linkCount), blob.storage.rawValue,
            ].map { Table.Cell($0) }
        }
        for line in table.lines(width: console.environment.terminalWidth, headerPaint: console.style.bold) {
            console.line(line)
        }
        let shown = blobs.count < info.blobCount ? "Showing \(Format.count(blobs.count)) of " : ""
        var total = "\(shown)\(Format.plural(info.blobCount, "blob")): \(Format.bytes(info.blobsSize)) stored, "
            + "\(Format.bytes(info.blobsDecompressedSize)) decompressed"
        let links = blobs.reduce(0) { $0 + $1.linkCount }
        if blobs.count == info.blobCount { total += ", \(Format.count(links)) links" }
        console.line(console.style.dim(total + "."))
    }

    /// `3.4×`: decompressed over stored; `1.0×` for a body kept as it was.
    static func ratio(_ blob: BlobSummary) -> String {
        guard blob.size > 0 else { return "-" }
        return Format.decimal(Double(blob.decompressedSize) / Double(blob.size), places: 1) + "×"
    }
}
