import Foundation
import Glibc
import LogStore

/// `export.peak_rss_mb` measured where it means what it says: a process of its own (this
/// executable re-run with ``flag``, then `STORE ARCHIVE`) that opens the store read-write, as a
/// live app has it, exports it as an archive, closes it and exits. The parent reads the child's
/// peak RSS from the kernel (`ru_maxrss` of `wait4`), so nothing an earlier benchmark group left
/// in the parent's memory counts.
enum ArchiveExportChild {
    static let flag = "--archive-export-child"

    struct Run {
        /// The child's peak resident set size, whole life (start, open, export, close), in MB.
        var peakMB: Double
        /// What the child held resident just before the export (runtime, open store), in MB.
        var residentBeforeMB: Double
        var messageCount: Int
    }

    /// Spawns the child, waits for it and returns its peak.
    static func run(store: URL, archive: URL) throws -> Run {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        let output = try TemporaryOutput()
        defer { output.remove() }
        let pid = try spawn(executable, [flag, store.path, archive.path], standardOutput: output.descriptor)
        var status: Int32 = 0
        var usage = rusage()
        var waited: pid_t
        repeat { waited = wait4(pid, &status, 0, &usage) } while waited < 0 && errno == EINTR
        guard waited == pid else { throw BenchError.failed("archive export child: wait4 failed (errno \(errno))") }
        let fields = output.text().split(separator: " ")
        // WIFEXITED and WEXITSTATUS, which Swift does not import (macros).
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0, fields.count == 2,
            let residentKB = Double(fields[0]), let messages = Int(fields[1])
        else {
            throw BenchError.failed("archive export child ended with status \(status): \(output.text())")
        }
        // Linux reports ru_maxrss in kilobytes.
        return Run(peakMB: Double(usage.ru_maxrss) / 1024, residentBeforeMB: residentKB / 1024, messageCount: messages)
    }

    /// The child's side when `arguments` start with ``flag``: prints `RESIDENT_KB_BEFORE MESSAGES`.
    static func runIfAsked(_ arguments: [String]) async -> Int32? {
        guard arguments.first == flag else { return nil }
        guard arguments.count == 3 else { return 64 }
        do {
            let store = try await BenchStore.open(at: URL(fileURLWithPath: arguments[1]), options: [])
            let resident = residentKilobytes()
            let report: ExportReport
            do {
                report = try await store.export(to: URL(fileURLWithPath: arguments[2]))
            } catch {
                try? await store.close()
                throw error
            }
            try await store.close()
            print("\(resident) \(report.messageCount)")
            return 0
        } catch {
            FileHandle.standardError.write(Data("archive export child: \(error)\n".utf8))
            return 1
        }
    }

    private static func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        }
        return 0
    }

    /// `posix_spawn` (not `Process`, whose reaping would take the child's `rusage` from us).
    private static func spawn(_ path: String, _ arguments: [String], standardOutput: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard result == 0 else { throw BenchError.failed("archive export child: posix_spawn failed (\(result))") }
        return pid
    }

    /// A temporary file for the child's one line (a pipe would need a reader beside `wait4`).
    private struct TemporaryOutput {
        let path: String
        let descriptor: Int32

        init() throws {
            path = NSTemporaryDirectory() + "/logstore-bench-child-\(UUID().uuidString)"
            descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw BenchError.failed("archive export child: open \(path) failed (errno \(errno))") }
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
