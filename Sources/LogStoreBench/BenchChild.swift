import Foundation
import Glibc

/// A figure measured in a process of its own: this executable re-run with a flag, its one line
/// of output read back (``report(_:)``), ending with its peak RSS as the kernel keeps it for the
/// child's own memory, so nothing an earlier benchmark group left in the parent's counts.
///
/// Not `ru_maxrss` of `wait4`: `posix_spawn` starts the child in the parent's address space
/// (`CLONE_VM`) until it execs, and Linux then folds the address space it leaves, the parent's,
/// into the child's `ru_maxrss`. An export child spawned late in a full run so reported 337 MB:
/// the parent's peak, not its own 67 MB.
enum BenchChild {
    /// What a child reported and what it cost.
    struct Outcome {
        /// The child's peak resident set size over its whole life, in MB (`VmHWM`).
        var peakMB: Double
        /// The child's one line of output, split at spaces, without the peak ``report(_:)`` added.
        var fields: [Substring]
    }

    /// Runs this executable with `arguments`, waits for it and returns its outcome; a child that
    /// fails is an error naming `what`.
    static func run(_ what: String, arguments: [String]) throws -> Outcome {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        let output = try TemporaryOutput(what)
        defer { output.remove() }
        let pid = try spawn(what, executable, arguments, standardOutput: output.descriptor)
        var status: Int32 = 0
        var waited: pid_t
        repeat { waited = waitpid(pid, &status, 0) } while waited < 0 && errno == EINTR
        guard waited == pid else { throw BenchError.failed("\(what): waitpid failed (errno \(errno))") }
        // WIFEXITED and WEXITSTATUS, which Swift does not import (macros).
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw BenchError.failed("\(what) ended with status \(status): \(output.text())")
        }
        var fields = output.text().split(separator: " ")
        guard let peakKilobytes = fields.popLast().flatMap({ Double($0) }), peakKilobytes > 0 else {
            throw BenchError.failed("\(what) reported no peak memory: \(output.text())")
        }
        return Outcome(peakMB: peakKilobytes / 1024, fields: fields)
    }

    /// The child's side: prints `fields` and this process's peak resident set size in kilobytes,
    /// on one line, for ``run(_:arguments:)``.
    static func report(_ fields: [String]) {
        print((fields + [String(statusKilobytes("VmHWM:"))]).joined(separator: " "))
    }

    /// What this process holds resident now, in kilobytes (0 when `/proc` cannot tell).
    static func residentKilobytes() -> Int {
        statusKilobytes("VmRSS:")
    }

    /// A kilobyte line of `/proc/self/status` (`VmRSS:`, `VmHWM:`); 0 when `/proc` cannot tell.
    private static func statusKilobytes(_ key: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(key) {
            return line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        }
        return 0
    }

    /// `posix_spawn`, not `Process`: the parent reads the child's one line after it ended.
    private static func spawn(_ what: String, _ path: String, _ arguments: [String], standardOutput: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard result == 0 else { throw BenchError.failed("\(what): posix_spawn failed (\(result))") }
        return pid
    }

    /// A temporary file for the child's one line (a pipe would need a reader beside `wait4`).
    private struct TemporaryOutput {
        let path: String
        let descriptor: Int32

        init(_ what: String) throws {
            path = NSTemporaryDirectory() + "/logstore-bench-child-\(UUID().uuidString)"
            descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw BenchError.failed("\(what): open \(path) failed (errno \(errno))") }
        }

        func text() -> String {
            (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        }

        func remove() {
            close(descriptor)
            unlink(path)
        }
    }
}
