import Foundation
import Glibc
import LogStore
import Synchronization
import Testing

/// Opens a store in a fresh temporary directory, runs `body` with it and its URL, then closes it
/// (whether `body` threw or not) so its writer thread ends with the test.
func withTemporaryStore<T>(
    options: LogStore.Options = [.create],
    configuration: LogStore.Configuration = LogStore.Configuration(),
    _ body: (LogStore, URL) async throws -> T
) async throws -> T {
    try await withTemporaryStoreURL { url in
        let store = try await LogStore(storeURL: url, options: options, configuration: configuration)
        let result: T
        do {
            result = try await body(store, url)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
        return result
    }
}

/// Opens the store at `url`, runs `body` and closes it again: one process run, one session.
func withStore<T>(
    at url: URL,
    options: LogStore.Options = [.create],
    configuration: LogStore.Configuration = LogStore.Configuration(),
    _ body: (LogStore) async throws -> T
) async throws -> T {
    let store = try await LogStore(storeURL: url, options: options, configuration: configuration)
    let result: T
    do {
        result = try await body(store)
    } catch {
        try? await store.close()
        throw error
    }
    try await store.close()
    return result
}

/// Every message of the store, oldest first, read page by page through the public query API.
func allMessages(_ store: LogStore, _ query: MessageQuery = MessageQuery()) async throws -> [LogStore.Message] {
    var query = query
    query.order = .oldestFirst
    query.limit = 1_000
    var messages: [LogStore.Message] = []
    while true {
        let page = try await store.messages(query)
        messages += page.messages
        guard let cursor = page.nextCursor else { return messages }
        query.cursor = cursor
    }
}

// MARK: Files

/// The permission bits of a file (`st_mode & 0o777`), or `nil` when it does not exist.
func permissions(of url: URL) -> mode_t? {
    var info = stat()
    guard lstat(url.path, &info) == 0 else { return nil }
    return info.st_mode & 0o777
}

/// The names in a directory, sorted.
func directoryListing(_ url: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
}

// MARK: Other processes

/// The result of a finished child process.
struct ProcessOutput {
    /// The exit status, or the number of the signal that ended it.
    var status: Int32
    var standardOutput: String
    var standardError: String
    /// How it ended.
    var termination: Termination
}

/// Runs an executable to completion (``SpawnedProcess``, standard input from `/dev/null`) and
/// returns its exit status and output. Blocking: run it on a thread of its own
/// (``onOwnThread(_:)``) from async code.
///
/// - Parameter seconds: with a bound (stretched by ``TimeScale``), the child is killed with
///   SIGKILL once it has run that long, so a stuck child fails the test (its status then
///   says so: `SIGKILL`, 9) instead of hanging the suite.
func runProcess(_ executable: String, _ arguments: [String], killedAfter seconds: Double? = nil) throws -> ProcessOutput {
    let run = try SpawnedProcess.runBlocking(
        URL(fileURLWithPath: executable), arguments, standardError: .captured, seconds: seconds ?? .infinity)
    return ProcessOutput(
        status: run.termination.signal ?? run.status, standardOutput: run.output, standardError: run.errorOutput,
        termination: run.termination)
}

/// The `sqlite3` shell: an independent reader and writer of store databases, as users have.
enum SQLiteShell {
    static let path = "/usr/bin/sqlite3"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs `sql` on the database file and returns its output without the final newline.
    @discardableResult
    static func run(_ database: URL, _ sql: String, readOnly: Bool = false) throws -> String {
        let arguments = (readOnly ? ["-readonly"] : []) + [database.path, sql]
        let result = try runProcess(path, arguments)
        guard result.status == 0 else {
            throw ShellError(command: "sqlite3 \(sql)", status: result.status, output: result.standardError)
        }
        var text = result.standardOutput
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}

struct ShellError: Error, CustomStringConvertible {
    var command: String
    var status: Int32
    var output: String
    var description: String { "\(command) exited with \(status): \(output)" }
}

/// The file-system immutable attribute (`chattr +i`). Root ignores permission bits, so a
/// directory made read-only with `chmod` still takes new files; an immutable directory takes
/// none, even from root. Needs `chattr` and a file system that supports the flag (ext4, xfs).
enum ImmutableDirectory {
    static let chattr = "/usr/bin/chattr"

    /// Whether `chattr +i` works here and really stops root from creating files.
    static let isSupported: Bool = {
        guard FileManager.default.isExecutableFile(atPath: chattr) else { return false }
        let probe = FileManager.default.temporaryDirectory
            .appendingPathComponent("logstore-immutable-probe-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)) != nil else {
            return false
        }
        defer {
            _ = try? runProcess(chattr, ["-i", probe.path])
            try? FileManager.default.removeItem(at: probe)
        }
        guard (try? runProcess(chattr, ["+i", probe.path]))?.status == 0 else { return false }
        let created = FileManager.default.createFile(atPath: probe.appendingPathComponent("x").path, contents: nil)
        return !created
    }()

    static func set(_ url: URL, immutable: Bool) throws {
        let result = try runProcess(chattr, [immutable ? "+i" : "-i", url.path])
        guard result.status == 0 else {
            throw ShellError(command: "chattr \(url.path)", status: result.status, output: result.standardError)
        }
    }
}

// MARK: Recording from other threads

/// A value that callbacks on other threads (the writer's `willHandleEvent`, `onWriteError`)
/// can update and the test can read.
final class Recorder<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) {
        self.value = Mutex(value)
    }

    @discardableResult
    func update<R: Sendable>(_ body: (inout Value) -> R) -> R {
        value.withLock { body(&$0) }
    }

    var current: Value { value.withLock { $0 } }
}
