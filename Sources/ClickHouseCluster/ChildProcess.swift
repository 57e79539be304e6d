import CLinux
import Foundation
import Glibc
import Synchronization

/// One process of a cluster (ZooKeeper or a ClickHouse server), started with `posix_spawn` from
/// ``LauncherThread`` and reaped by a thread of its own; its standard output and error go to a
/// file in its directory.
///
/// Not Foundation's `Process`: on Linux it learns that a child ended when a socket the child
/// inherits closes, and clickhouse-server closes every inherited descriptor when it starts.
/// Foundation's one monitoring thread then waits in `waitpid` for that server, and notices no
/// child's end any more: a killed server stays a zombie and `isRunning` stays true.
///
/// Under `setpriv --pdeathsig KILL` when `setpriv` is there: `setpriv` sets the parent-death
/// signal and execs the program, so the pid stays the program's and the kernel kills it when the
/// test process ends, however it ends.
final class ChildProcess: Sendable {
    /// The name errors give it (`r0`, `zookeeper`).
    let name: String
    /// Its pid.
    let identifier: pid_t
    /// Where its standard output and standard error go.
    let outputFile: URL
    /// The log the program writes itself (ClickHouse's `server.log`), if any.
    let logFile: URL?
    /// Its wait status once reaped; `nil` while it runs.
    private let status = Mutex<Int32?>(nil)

    private init(name: String, identifier: pid_t, outputFile: URL, logFile: URL?) {
        self.name = name
        self.identifier = identifier
        self.outputFile = outputFile
        self.logFile = logFile
    }

    /// Starts `executable` with `arguments`, its output appended to `directory/<name>.out` (kept
    /// across restarts: the tail of an earlier run explains a later failure too).
    static func launch(
        name: String, executable: URL, arguments: [String], directory: URL, logFile: URL? = nil,
        installation: Installation
    ) async throws -> ChildProcess {
        let outputFile = directory.appendingPathComponent("\(name).out")
        var program = executable.path
        var argv = [executable.path] + arguments
        if let setpriv = installation.setpriv {
            program = setpriv.path
            argv = [setpriv.path, "--pdeathsig", "KILL", "--"] + argv
        }
        let pid = try await LauncherThread.shared.run { [program, argv] () throws -> pid_t in
            let (pid, code) = spawn(program, argv, output: outputFile.path)
            guard code == 0 else {
                throw ClickHouseClusterError(
                    .launchFailed, "could not launch \(name) (\(program)): \(String(cString: strerror(code)))")
            }
            return pid
        }
        let child = ChildProcess(name: name, identifier: pid, outputFile: outputFile, logFile: logFile)
        // Reaped here, so its pid stays its own (a zombie) until `status` says it ended.
        Thread.detachNewThread { [child] in
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            child.status.withLock { $0 = raw }
        }
        return child
    }

    /// `posix_spawn` of `program`: standard input from /dev/null, output and error appended to
    /// `output`, no other descriptor inherited, default signal dispositions and an empty mask
    /// (the test process may ignore SIGPIPE or block signals), in a process group of its own (a
    /// Ctrl-C in the terminal goes to the test runner, which then takes the children along).
    /// Returns the pid and 0, or 0 and the error number.
    private static func spawn(_ program: String, _ arguments: [String], output: String) -> (pid_t, Int32) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, program, &actions, &attributes, argv, environ)
        return code == 0 ? (pid, 0) : (0, code)
    }

    /// Whether it is still running (`false` once it ended and was reaped).
    var isRunning: Bool { status.withLock { $0 == nil } }

    /// Sends `signal` (SIGKILL unless told) if it still runs.
    func signal(_ signal: Int32 = SIGKILL) {
        // Under the lock: once reaped, its pid may belong to another process.
        status.withLock { if $0 == nil { _ = Glibc.kill(identifier, signal) } }
    }

    /// Waits until it has ended, at most `seconds`: whether it did. Blocking (it polls every
    /// 10 ms): a killed process is gone in a few milliseconds.
    func waitForExit(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning {
            if Date() >= deadline { return false }
            usleep(10_000)
        }
        return true
    }

    /// Kills it with SIGKILL and waits (at most `seconds`) until it is gone.
    func killAndWait(seconds: Double = 10) -> Bool {
        signal(SIGKILL)
        return waitForExit(seconds: seconds)
    }

    /// Its resident memory in bytes (`VmRSS` of `/proc/<pid>/status`), or `nil` when it ended.
    var residentBytes: Int? {
        guard isRunning,
            let status = try? String(contentsOfFile: "/proc/\(identifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }

    /// How it ended (its status, or the signal), for an error when it ended too early.
    var ending: String {
        guard let raw = status.withLock({ $0 }) else { return "still running" }
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS are macros Swift cannot import.
        let signal = raw & 0x7f
        return signal == 0 ? "exited with status \((raw >> 8) & 0xff)" : "killed by signal \(signal)"
    }

    /// The last lines of its output and of its own log, for an error that needs evidence.
    func tail(lines: Int = 15) -> String {
        var parts = ["\(outputFile.lastPathComponent): \(Self.tail(of: outputFile, lines: lines))"]
        if let logFile { parts.append("\(logFile.lastPathComponent): \(Self.tail(of: logFile, lines: lines))") }
        return parts.joined(separator: "\n")
    }

    /// The last `lines` lines of the file (read from its last 16 KiB), or why there are none.
    private static func tail(of file: URL, lines: Int) -> String {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return "(no file)" }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return "(unreadable)" }
        let start = size > 16_384 ? size - 16_384 : 0
        guard (try? handle.seek(toOffset: start)) != nil, let data = try? handle.readToEnd() else {
            return "(unreadable)"
        }
        let text = String(decoding: data, as: UTF8.self).split(separator: "\n").suffix(lines)
        return text.isEmpty ? "(empty)" : "\n    " + text.joined(separator: "\n    ")
    }
}
