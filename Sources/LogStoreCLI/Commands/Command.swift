import Foundation
import LogStore

/// One `logstore` subcommand.
protocol Command: Sendable {
    /// What it accepts, for parsing and `--help`.
    static var spec: CommandSpec { get }
    /// Runs it with checked arguments. Throws ``UsageError`` for bad values (exit 64),
    /// ``CommandFailure`` or ``LogStoreError`` for everything else (exit 1).
    static func run(_ arguments: ParsedArguments, console: inout Console) async throws
}

/// A failure a command reports in one line, with its exit status (``ExitStatus/failure``
/// unless it says otherwise).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    var status: Int32 = ExitStatus.failure
}

/// Opening and closing stores for the commands.
enum StoreAccess {
    /// The store directory named on the command line (relative paths resolve against the current
    /// directory).
    static func url(_ path: String) -> URL {
        URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Whether `path` names an archive (a file) rather than a store (a directory).
    static func isArchive(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    /// Opens an existing store read-only (a missing store is never created), or an archive when
    /// `path` is a file, runs `body`, then closes it, also when `body` throws.
    static func withReadonlyStore<T>(
        _ path: String, _ body: (LogStore) async throws -> T
    ) async throws -> T {
        if isArchive(path) {
            return try await run(body, on: try await LogStore(archiveURL: URL(fileURLWithPath: path)))
        }
        return try await withStore(path, options: [.readonly], configuration: LogStore.Configuration(), body)
    }

    /// Opens an existing store for writing, runs `body`, then closes it (draining and
    /// checkpointing), also when `body` throws.
    ///
    /// A missing store is never created, and the store gets no sweep schedule: a command does
    /// its one job and leaves, and an application with the store open keeps its own schedule.
    /// Nor does it get a session: maintenance from the shell is not a run of the app
    /// (``LogStore/Configuration/recordsSessionOnOpen``).
    static func withWritableStore<T>(
        _ path: String, configuration: LogStore.Configuration, _ body: (LogStore) async throws -> T
    ) async throws -> T {
        if isArchive(path) {
            throw CommandFailure(description: "\(path) is an archive, which is read-only: only reading commands take one")
        }
        var configuration = configuration
        configuration.recordsSessionOnOpen = false
        return try await withStore(path, options: [], configuration: configuration, body)
    }

    private static func withStore<T>(
        _ path: String, options: LogStore.Options, configuration: LogStore.Configuration,
        _ body: (LogStore) async throws -> T
    ) async throws -> T {
        try await run(body, on: try await LogStore(storeURL: url(path), options: options, configuration: configuration))
    }

    private static func run<T>(_ body: (LogStore) async throws -> T, on store: LogStore) async throws -> T {
        let result: T
        do {
            result = try await body(store)
        } catch {
            // The body's error is the one to report; closing still releases the store's lock
            // and connections, and what it could add is a consequence of the same failure.
            do { try await store.close() } catch {}
            throw error
        }
        try await store.close()
        return result
    }
}
