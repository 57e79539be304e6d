import Foundation
import LogStore

/// `logstore open <archive> [--json]`: checks an archive the way the library opens it and prints
/// what its info record says.
enum OpenCommand: Command {
    static let spec = CommandSpec(
        name: "open",
        summary: "Check an archive (.lsarchive) and show what it holds.",
        positionals: [.init(name: "archive", help: "The archive file ('logstore export' writes one).")],
        options: [json],
        discussion: """
            Opening checks the whole archive: its structure, its info record, every chunk's
            checksum and the database's schema; a damaged or crafted file is reported, never
            trusted. Every reading command (info, messages, tasks, task, blobs, sessions, summary,
            tail, export, history) takes an archive in place of a store directory.

            Examples:
              logstore open incident.lsarchive
              logstore open incident.lsarchive --json | jq .messageCount
              logstore messages incident.lsarchive --level error
            """)

    static let json = FlagOption("json", "Print the archive's info record as JSON (pretty, sorted keys, ISO 8601 dates).")

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let path = arguments.positionals[0]
        // Nothing there is "not found" (66), as for the other commands; a directory is the
        // wrong kind of thing (1).
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure(description: Failure.noStore(path, isArchive: true), status: ExitStatus.notFound)
        }
        guard StoreAccess.isArchive(path) else {
            throw CommandFailure(
                description: "\(Format.escaped(path)) is not a file: 'logstore open' takes an archive (use 'logstore info' for a store)")
        }
        let info = try await StoreAccess.withReadonlyStore(path) { store in
            guard let info = store.archiveInfo else { throw CommandFailure(description: "\(Format.escaped(path)) is not an archive") }
            return info
        }
        if arguments.flag(json) {
            console.line(try JSONOutput.pretty(info))
            return
        }
        // Opening it checked all of it: a damaged file would have failed above.
        console.line(console.style.green("The archive checked out: its structure, info record, every chunk's checksum and its database schema are sound."))
        console.line()
        for line in lines(info, path: URL(fileURLWithPath: path).path, style: console.style) { console.line(line) }
    }

    static func lines(_ info: ArchiveInfo, path: String, style: TextStyle) -> [String] {
        var rows: [(String, String)] = [
            ("Archive", Format.escaped(path)),
            ("Store ID", info.storeID.uuidString),
            ("Exported from", info.sourceStoreID.uuidString),
            ("Created", style.time(info.createdAt)),
            ("Messages", Format.count(info.messageCount)),
            ("Tasks", Format.count(info.taskCount)),
            ("Blobs", Format.count(info.blobCount)),
            ("Database size", Format.bytes(info.databaseSize) + " once extracted"),
            ("Body files", Format.bytes(info.blobFileSize)),
            ("Library version", Format.escaped(info.libraryVersion)),
            ("Schema version", "\(info.schemaVersion)"),
            ("Archive format", "\(info.formatVersion)"),
            ("Sessions", Format.count(info.sessions.count)),
        ]
        for session in info.sessions {
            let app = [session.app, session.appVersion].compactMap { $0 }.map(Format.escaped).joined(separator: " ")
            rows.append(("  " + session.id.uuidString, "\(style.time(session.startDate))  \(app) on \(Format.escaped(session.hostname))"))
        }
        return Format.fields(rows)
    }
}
