import Foundation
import LogStore

/// `logstore sessions <store> [--json]`: every process run that wrote to the store, with the
/// machine it ran on.
enum SessionsCommand: Command {
    static let spec = CommandSpec(
        name: "sessions",
        summary: "List the sessions (process runs) with their app and host snapshots.",
        positionals: [.init(name: "store", help: "The store directory, or an archive (.lsarchive) file.")],
        options: [json],
        discussion: """
            Sessions are listed oldest first. Use a session's id with 'logstore messages --session'.
            Maintenance from the shell (logstore sweep) records no session.

            Examples:
              logstore sessions app.logstore
              logstore sessions app.logstore --json | jq '.[].id'
            """)

    static let json = FlagOption("json", "Print the sessions as a JSON array (pretty, sorted keys, ISO 8601 dates).")

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let sessions = try await StoreAccess.withReadonlyStore(arguments.positionals[0]) { try await $0.sessions() }
        if arguments.flag(json) {
            console.line(try JSONOutput.pretty(sessions))
            return
        }
        if sessions.isEmpty {
            console.line("No sessions.")
            return
        }
        for (index, session) in sessions.enumerated() {
            if index > 0 { console.line() }
            console.line(console.style.bold("Session \(index + 1) of \(sessions.count)  \(session.id.uuidString)"))
            for line in Format.fields(rows(session, style: console.style), indent: 2) { console.line(line) }
            for change in session.hostChanges {
                console.line("  " + console.style.yellow("Host changed: \(Format.escaped(change))"))
            }
        }
    }

    static func rows(_ session: LogStore.Session, style: TextStyle) -> [(String, String)] {
        let app = session.app
        let host = session.host
        var rows: [(String, String)] = [
            ("Started", style.time(session.startDate)),
            ("App", [app.name, app.version].compactMap { $0 }.map(Format.escaped).joined(separator: " ")
                + " (pid \(app.pid))"),
            ("Arguments", app.arguments.map { Format.escaped(Format.shellQuoted($0)) }.joined(separator: " ")),
            ("Host", Format.escaped(host.hostname)),
            ("OS", Format.escaped(host.osPrettyName.isEmpty ? "\(host.osName) \(host.osVersion)" : host.osPrettyName)),
            ("Kernel", "\(Format.escaped(host.kernelVersion)) (\(Format.escaped(host.architecture)))"),
            ("CPU", "\(host.cpuModel.isEmpty ? "unknown" : Format.escaped(host.cpuModel)) × \(host.cpuCount)"),
            ("Memory", "\(Format.bytes(host.memoryAvailable)) available of \(Format.bytes(host.memoryTotal))"),
            ("Disk", "\(Format.bytes(host.diskFree)) free of \(Format.bytes(host.diskTotal))"),
            ("Uptime", Format.duration(host.uptime)),
        ]
        let product = [host.productName, host.vendor.map { "(\($0))" }].compactMap { $0 }
        if !product.isEmpty {
            rows.append(("Product", Format.escaped(product.joined(separator: " "))))
        }
        let nameWidth = host.networkInterfaces.map(\.name.count).max() ?? 0
        let interfaces = host.networkInterfaces.map { interface in
            let addresses = interface.addresses.isEmpty ? "no address" : interface.addresses.joined(separator: ", ")
            return Format.escaped(interface.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  " + addresses)
        }
        rows.append(("Interfaces", interfaces.isEmpty ? "none" : interfaces.joined(separator: "\n")))
        return rows
    }
}
