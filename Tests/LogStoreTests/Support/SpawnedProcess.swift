import Dispatch
import Foundation
import Glibc
import Synchronization

/// A child process started with `posix_spawn` (not Foundation's `Process`, which crashed once in
/// this suite), its standard output and error collected through one pipe, waited for on a thread
/// of its own and killed (SIGKILL) past its bound, so a stuck child fails the test instead of
/// hanging the suite.
struct SpawnedProcess: Sendable {
    /// The exit status, or 128 + the signal that ended it.
    var status: Int32
    /// Everything it wrote to standard output and standard error.
    var output: String
    /// Whether it was killed for outliving its bound.
    var timedOut: Bool

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

    /// Runs `executable` with `arguments` to its end, at most `seconds` (stretched by ``TimeScale``).
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], seconds: Double
    ) async throws -> SpawnedProcess {
        try await onOwnThread { try runBlocking(executable, arguments, environment: environment, seconds: seconds) }
    }

    struct SpawnFailed: Error, CustomStringConvertible {
        let code: Int32
        var description: String { "posix_spawn failed: \(String(cString: strerror(code)))" }
    }

    private static func runBlocking(
        _ executable: URL, _ arguments: [String], environment: [String: String], seconds: Double
    ) throws -> SpawnedProcess {
        var pipeEnds: [Int32] = [0, 0]
        // Close-on-exec from the start: children other tests spawn meanwhile must not inherit
        // the write end, or the read here would wait for them too.
        guard pipeWithFlags(&pipeEnds, O_CLOEXEC) == 0 else { throw SpawnFailed(code: errno) }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)

        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        close(writeEnd)
        guard spawned == 0 else {
            close(readEnd)
            throw SpawnFailed(code: spawned)
        }
        defer { close(readEnd) }

        let deadline = Date().addingTimeInterval(TimeScale.scaled(seconds))
        var output = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var timedOut = false
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 {
                timedOut = true
                kill(pid, SIGKILL)
                break
            }
            var poller = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 && errno != EINTR { break }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count < 0 { if errno == EINTR { continue } else { break } }
            if count == 0 { break }
            output += buffer[0..<count]
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot import.
        let signal = status & 0x7f
        let code = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        return SpawnedProcess(status: code, output: String(decoding: output, as: UTF8.self), timedOut: timedOut)
    }
}

/// `pipe2(2)`, which Glibc's module map leaves out (it is a GNU extension).
@_silgen_name("pipe2")
private func pipeWithFlags(_ descriptors: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

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

/// A child process that runs beside the test (started with `posix_spawn`, as ``SpawnedProcess``),
/// killed if a test leaves it running. Its standard output goes to `standardOutput` (or nowhere),
/// its standard error nowhere.
final class ChildProcess: Sendable {
    /// The child's pid.
    let identifier: pid_t
    private let ended = DispatchSemaphore(value: 0)
    /// Its exit status (or 128 + the signal), once it ended; -1 before.
    private let status = Atomic<Int32>(-1)

    init(_ executable: URL, _ arguments: [String], standardOutput: FileHandle? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let standardOutput {
            posix_spawn_file_actions_adddup2(&actions, standardOutput.fileDescriptor, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw SpawnedProcess.SpawnFailed(code: spawned) }
        identifier = pid
        // Reaped on a thread of its own, so the status is there when the semaphore says so.
        Thread.detachNewThread { [self] in
            var raw: Int32 = 0
            while waitpid(identifier, &raw, 0) < 0 && errno == EINTR {}
            let signal = raw & 0x7f
            status.store(signal == 0 ? (raw >> 8) & 0xff : 128 + signal, ordering: .releasing)
            ended.signal()
        }
    }

    /// Its exit status once it ends within `seconds` (stretched by ``TimeScale``; waited for off
    /// the cooperative pool); killed and `nil` when it does not.
    func waitForExit(seconds: Double) async throws -> Int32? {
        let ended = self.ended
        let inTime = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            DispatchQueue.global().async {
                continuation.resume(returning: ended.wait(timeout: .now() + TimeScale.scaled(seconds)) == .success)
            }
        }
        guard inTime else {
            stop()
            return nil
        }
        ended.signal()
        return status.load(ordering: .acquiring)
    }

    func stop() {
        if status.load(ordering: .acquiring) < 0 { kill(identifier, SIGKILL) }
    }
}
