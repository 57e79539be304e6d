import Foundation
import LogStore

/// One `logstore` subcommand.
protocol Command: Sendable {
    /// What it accepts, for parsing and `--help`.
    static var spec: CommandSpec { get }
    /// Runs it with checked arguments. Throws ``UsageError`` for bad values (exit 64),
    /// ``CommandFailure`` or ``LogStore/Error`` for everything else (exit 1).
    static func run(_ arguments: ParsedArguments, console: inout Console) async throws
}

/// A failure a command reports in one line (exit code 1).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
}

/// Opening and closing stores for the commands.
enum StoreAccess {
    /// The store directory named on the command line (relative paths resolve against the current
    /// directory).
    static func url(_ path: String) -> URL {
        URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Opens an existing store read-only (a missing store is never created), runs `body`, then
    /// closes it, also when `body` throws.
    static func withReadonlyStore<T>(
        _ path: String, _ body: (LogStore) async throws -> T
    ) async throws -> T {
        let store = try await LogStore(storeURL: url(path), options: [.readonly])
        let result: T
        do {
            result = try await body(store)
        } catch {
            // The body's error is the one to report; a read-only store has nothing to lose.
            do { try await store.close() } catch {}
            throw error
        }
        try await store.close()
        return result
    }
}
