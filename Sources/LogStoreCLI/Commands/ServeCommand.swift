import Foundation
import Glibc
import LogStore
import LogStoreConsole

/// `logstore serve <store|archive>`: the live console in a browser, until Ctrl-C.
enum ServeCommand: Command {
    static let spec = CommandSpec(
        name: "serve",
        summary: "Serve the live console: messages, tasks, host and history in a browser, on loopback.",
        positionals: [.init(name: "store", help: "The store directory, or an archive (.lsarchive) file.")],
        options: [port, listen, files],
        discussion: """
            Prints one URL with a random access token; open it in a browser (through an SSH tunnel
            from elsewhere: ssh -L 8080:127.0.0.1:8080 host, with --port 8080). The console only
            reads, follows the store while the app keeps logging, and ends with status 0 on Ctrl-C
            (SIGINT) or SIGTERM.

            Examples:
              logstore serve app.logstore
              logstore serve app.logstore --port 8080 --files /var/log/myapp
              logstore serve incident.lsarchive
            """)

    static let port = ValueOption("port", "n", "Listen on this port (default: a free one).")
    static let listen = ValueOption(
        "listen", "address",
        "Listen on this address (default 127.0.0.1). Anything but loopback exposes the console to the network, guarded by its token alone.")
    static let files = ValueOption("files", "dir", "Also browse this directory's files (previews and downloads; nothing outside it).")

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        var configuration = LogStoreConsole.Configuration()
        if let text = arguments.value(port) {
            configuration.port = UInt16(try ValueParsers.integer(text, option: port.name, in: 1...65_535))
        }
        if let address = arguments.value(listen) { configuration.host = address }
        if let directory = arguments.value(files) {
            configuration.filesDirectory = URL(fileURLWithPath: directory, isDirectory: true)
        }
        raiseDescriptorLimit()
        let stop = StopSignal()
        defer { stop.cancel() }
        try await StoreAccess.withReadonlyStore(arguments.positionals[0]) { store in
            let server: LogStoreConsole
            do {
                server = try await LogStoreConsole.start(store: store, configuration: configuration)
            } catch let error as ConsoleError {
                throw CommandFailure(description: error.description)
            }
            if server.isExposed {
                console.errorLine(
                    "logstore: warning: listening on \(configuration.host), beyond this machine: anyone who can reach it and has the URL's token can read this store")
            }
            console.line("Console: \(server.url.absoluteString)")
            console.line(console.style.dim("Open it in a browser; Ctrl-C stops."))
            console.flush()
            await stop.wait()
            await server.stop()
        }
    }

    /// Each connection is a descriptor: the soft limit (often 1,024) goes up to the hard one,
    /// so a thousand browsers and tools can connect at once.
    private static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        // Not raised: the console still serves, with fewer connections at once.
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
