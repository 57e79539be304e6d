import Foundation
import Glibc

/// A figure measured in a process of its own: this executable re-run with a flag, its one line
/// of output read back, and its peak RSS taken from the kernel (`ru_maxrss` of `wait4`), so
/// nothing an earlier benchmark group left in the parent's memory counts.
enum BenchChild {
    /// What a child reported and what it cost.
    struct Outcome {
        /// The child's peak resident set size over its whole life, in MB.
        var peakMB: Double
        /// The child's one line of output, split at spaces.
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
        var usage = rusage()
        var waited: pid_t
        repeat { waited = wait4(pid, &status, 0, &usage) } while waited < 0 && errno == EINTR
        guard waited == pid else { throw BenchError.failed("\(what): wait4 failed (errno \(errno))") }
        // WIFEXITED and WEXITSTATUS, which Swift does not import (macros).
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw BenchError.failed("\(what) ended with status \(status): \(output.text())")
        }
        // Linux reports ru_maxrss in kilobytes.
        return Outcome(peakMB: Double(usage.ru_maxrss) / 1024, fields: output.text().split(separator: " "))
    }

    /// What this process holds resident now, in kilobytes (0 when `/proc` cannot tell).
    static func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        }
        return 0
    }

    /// `posix_spawn` (not `Process`, whose reaping would take the child's `rusage` from us).
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
