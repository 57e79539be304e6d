public import Foundation
public import LogStore

/// A live console over a store: a browser page, on loopback and behind a token, that shows the
/// host, the messages (filtered, searched, followed live), the network tasks, the change
/// history and, if asked, a directory's files — while the store keeps logging.
///
/// What `logstore serve` runs, and what an app starts beside its own store, the developer
/// assistant living inside the app:
///
/// ```swift
/// let console = try await LogStoreConsole.start(store: store)
/// print("console:", console.url)   // http://127.0.0.1:41237/?token=…
/// // … later, before closing the store:
/// await console.stop()
/// ```
///
/// It only reads: nothing it serves writes to the store or to the files it shows. Every route
/// needs the token printed in ``url`` (then kept in a cookie), requests naming another host are
/// refused (DNS rebinding), and logged text is always shown as text. See the DocC article
/// "The console".
public final class LogStoreConsole: Sendable {
    /// Where and what a console serves.
    public struct Configuration: Sendable {
        /// The address to listen on: `127.0.0.1` (the default) or `::1` keep the console on this
        /// machine (reach it from elsewhere through an SSH tunnel); any other address exposes it
        /// to the network, guarded by its token alone.
        public var host: String
        /// The port; 0 (the default) for a free one the system picks.
        public var port: UInt16
        /// A directory whose files the console lists, previews and serves; nil (the default)
        /// for none. Nothing outside it is reachable.
        public var filesDirectory: URL?

        /// Creates a configuration; by default loopback, a free port, no files.
        public init(host: String = "127.0.0.1", port: UInt16 = 0, filesDirectory: URL? = nil) {
            self.host = host
            self.port = port
            self.filesDirectory = filesDirectory
        }
    }

    /// The address to open, with the token: `http://127.0.0.1:41237/?token=…`.
    public let url: URL
    /// The port it listens on.
    public let port: UInt16
    /// Whether it listens beyond this machine (not loopback).
    public let isExposed: Bool

    private let server: HTTPServer
    private let downloads: Downloads
    private let scratch: URL

    private init(server: HTTPServer, url: URL, downloads: Downloads, scratch: URL, isExposed: Bool) {
        self.server = server
        self.url = url
        self.port = server.port
        self.downloads = downloads
        self.scratch = scratch
        self.isExposed = isExposed
    }

    /// Starts serving `store` (opened by the caller, and closed by it after ``stop()``).
    /// - Throws: ``ConsoleError`` when the address cannot be bound or the files directory is
    ///   not one.
    public static func start(store: LogStore, configuration: Configuration = Configuration()) async throws -> LogStoreConsole {
        let files = try FilesAPI.serving(configuration.filesDirectory)
        let scratch = try ScratchDirectory.make()
        let downloads = Downloads(store: store, directory: scratch)
        // The routes need the bound port (for the Host check) before the first request; the
        // server binds first and asks for them then.
        let routes = DeferredRoutes()
        let server: HTTPServer
        do {
            server = try HTTPServer(host: configuration.host, port: configuration.port, handler: routes)
        } catch {
            ScratchDirectory.remove(scratch)
            throw ConsoleError.cannotListen(configuration.host, configuration.port, String(describing: error))
        }
        let access = ConsoleAccess(host: configuration.host, port: server.port)
        routes.install(ConsoleRoutes(store: store, access: access, downloads: downloads, files: files))
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        guard let url = URL(string: "http://\(host):\(server.port)/?token=\(access.token)") else {
            await server.stop()
            ScratchDirectory.remove(scratch)
            throw ConsoleError.cannotListen(configuration.host, configuration.port, "no URL names it")
        }
        return LogStoreConsole(
            server: server, url: url, downloads: downloads, scratch: scratch,
            isExposed: !ConsoleAccess.isLoopback(configuration.host))
    }

    /// Stops serving: closes every connection (live tails end), waits for the requests in
    /// progress, and removes the downloads it exported. Call it before closing the store.
    public func stop() async {
        await server.stop()
        downloads.removeAll()
        ScratchDirectory.remove(scratch)
    }
}

/// Why a console did not start.
public enum ConsoleError: Error, CustomStringConvertible, Sendable {
    /// The address and port could not be listened on (in use, not an address of this machine,
    /// a privileged port): address, port, what the system said.
    case cannotListen(String, UInt16, String)
    /// The files directory is missing or not a directory: its path, what was wrong.
    case filesDirectory(String, String)

    /// A sentence for the person who started it.
    public var description: String {
        switch self {
        case .cannotListen(let host, let port, let reason):
            "cannot listen on \(host):\(port == 0 ? "(any port)" : String(port)): \(reason)"
        case .filesDirectory(let path, let reason): "cannot show the files of \(path): \(reason)"
        }
    }
}
