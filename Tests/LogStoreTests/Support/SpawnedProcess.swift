import Dispatch
import Foundation
import Glibc
import Synchronization

/// A command run to its end: started as a ``ChildProcess`` (with `posix_spawn`, never
/// Foundation's `Process`), its output collected as it writes, waited for off the cooperative
/// pool and killed (SIGKILL) past its bound, so a stuck child fails the test instead of hanging
/// the suite.
struct SpawnedProcess: Sendable {
    /// How it ended.
    var termination: Termination
    /// Everything it wrote to standard output, and to standard error when that went there too
    /// (the default).
    var output: String
    /// What it wrote to standard error when that was captured on its own (`standardError:
    /// .captured`); empty otherwise.
    var errorOutput: String
    /// Whether it was killed for outliving its bound.
    var timedOut: Bool

    /// The exit status, or 128 + the signal that ended it.
    var status: Int32 { termination.status }

    /// The `key=value` fields of the last line starting with `prefix` and a space.
    func fields(of prefix: String) -> [String: String] {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix(prefix + " ") }) else { return [:] }
        var fields: [String: String] = [:]
        for pair in line.dropFirst(prefix.count + 1).split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }

    /// Runs `executable` with `arguments` to its end, at most `seconds` (stretched by
    /// ``TimeScale``), on a thread of its own. `input` is its standard input (`/dev/null` when
    /// `nil`); its standard error goes with its output unless told otherwise. The other
    /// parameters are ``ChildProcess``'s.
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], workingDirectory: URL? = nil,
        input: [UInt8]? = nil, standardError: ChildOutput = .standardOutput, seconds: Double
    ) async throws -> SpawnedProcess {
        try await onOwnThread {
            try runBlocking(
                executable, arguments, environment: environment, workingDirectory: workingDirectory, input: input,
                standardError: standardError, seconds: seconds)
        }
    }

    /// ``run(_:_:environment:workingDirectory:input:standardError:seconds:)`` on the calling
    /// thread, which it blocks; `seconds: .infinity` sets no bound.
    ///
    /// - Throws: ``SpawnFailed``, or ``TimeLimitExceeded`` when it outlives even the SIGKILL
    ///   sent at its bound by ``killGraceSeconds``.
    static func runBlocking(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], workingDirectory: URL? = nil,
        input: [UInt8]? = nil, standardError: ChildOutput = .standardOutput, seconds: Double
    ) throws -> SpawnedProcess {
        let child = try ChildProcess(
            executable, arguments, environment: environment, workingDirectory: workingDirectory,
            standardInput: input.map { .bytes($0) } ?? .empty, standardOutput: .captured, standardError: standardError)
        var ended = child.waitForTermination(seconds: seconds)
        let timedOut = ended == nil
        if timedOut {
            child.stop()
            ended = child.waitForTermination(seconds: killGraceSeconds)
        }
        guard let termination = ended else { throw TimeLimitExceeded(seconds: seconds + killGraceSeconds) }
        // Reaped: the reader takes what is left in the pipes and stops at once.
        guard child.waitForOutputEnd(seconds: killGraceSeconds) else {
            throw TimeLimitExceeded(seconds: killGraceSeconds)
        }
        return SpawnedProcess(
            termination: termination, output: child.output, errorOutput: child.errorOutput, timedOut: timedOut)
    }

    /// How long a child killed with SIGKILL may take to be gone (a bound, not a wait: it is gone
    /// in milliseconds).
    static let killGraceSeconds: Double = 30

    struct SpawnFailed: Error, CustomStringConvertible {
        let code: Int32
        var description: String { "posix_spawn failed: \(String(cString: strerror(code)))" }
    }
}

/// The store files (under `directory`) this process holds open although they were deleted: a
/// sign that another process took the exclusive lock it should never have got while this one had
/// the store open, and checkpointed and deleted the WAL under it.
func deletedStoreFilesHeld(under directory: URL) -> [String] {
    openDescriptorTargets().filter { $0.hasPrefix(directory.path) && $0.hasSuffix(" (deleted)") }
}

/// Where every descriptor of this process points (`/proc/self/fd`).
func openDescriptorTargets() -> [String] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
    return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
}

/// Whether an executable of that name is in one of the `PATH`'s directories (a test that needs an
/// outside tool says so instead of failing where it is missing).
func isOnPath(_ name: String) -> Bool {
    (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
}
