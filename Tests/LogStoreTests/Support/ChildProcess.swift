import Dispatch
import Foundation
import Glibc
import Synchronization

/// How a child process ended.
enum Termination: Sendable, Equatable, CustomStringConvertible {
    /// It exited with this status.
    case exited(Int32)
    /// A signal ended it.
    case signalled(Int32)
    /// `waitpid` failed with this error number: how it ended is unknown.
    case waitFailed(Int32)

    /// Decodes a `waitpid` status (`WIFEXITED`, `WEXITSTATUS` and `WTERMSIG` are macros Swift
    /// cannot import; stops are never reported, since no wait asks for them).
    init(waitStatus raw: Int32) {
        let signal = raw & 0x7f
        self = signal == 0 ? .exited((raw >> 8) & 0xff) : .signalled(signal)
    }

    /// The exit status, or 128 + the signal (as a shell reports it), or -1 when unknown.
    var status: Int32 {
        switch self {
        case .exited(let code): code
        case .signalled(let signal): 128 + signal
        case .waitFailed: -1
        }
    }

    /// The signal that ended it, if one did.
    var signal: Int32? {
        if case .signalled(let signal) = self { signal } else { nil }
    }

    var description: String {
        switch self {
        case .exited(let code): "exited with \(code)"
        case .signalled(let signal): "killed by signal \(signal)"
        case .waitFailed(let code): "not waited for: \(String(cString: strerror(code)))"
        }
    }
}

/// Where a child's standard output or standard error goes.
enum ChildOutput: Sendable {
    /// `/dev/null`.
    case discarded
    /// A pipe this process drains as the child writes (``ChildProcess/output``,
    /// ``ChildProcess/errorOutput``).
    case captured
    /// An open file: the child gets a copy of its descriptor (the caller may close its own).
    case file(FileHandle)
    /// Standard error only: wherever standard output goes, in the order the child wrote them.
    case standardOutput
}

/// What a child reads on its standard input.
enum ChildInput: Sendable {
    /// `/dev/null`: end of file at once.
    case empty
    /// These bytes, written by a thread of its own, then end of file.
    case bytes([UInt8])
    /// A pipe nothing is written to: the child sees end of file at ``ChildProcess/closeInput()``.
    case held
}

/// A child process started with `posix_spawn` — never Foundation's `Process`, whose `run()` can
/// crash the whole test process (swift-corelibs-foundation #5472: `findMaximumOpenFromProcSelfFD`
/// reads past its buffer). It runs beside the test: signal it, wait for its end or for output
/// with a bound, read what it wrote. Callers stop it (`defer { child.stop() }`) when a test may
/// leave it running.
///
/// A thread of its own reaps it; another drains its captured output and error as it writes
/// them, so a child never blocks on a full pipe. Every wait wakes at once on a change (a chunk
/// of output, its end, the child's end) instead of polling.
final class ChildProcess: Sendable {
    /// The child's pid; it stays the child's until it has been reaped (``termination``).
    let identifier: pid_t
    private let state: Mutex<State>
    /// Our end of its standard input (``ChildInput/held``), -1 once closed.
    private let inputEnd: Mutex<Int32>

    private struct State {
        var termination: Termination? = nil
        var output: [UInt8] = []
        var errorOutput: [UInt8] = []
        /// Whether every captured pipe has been drained (at once when nothing is captured).
        var outputEnded: Bool
        /// When the latest chunk of output or error arrived.
        var lastArrival: ContinuousClock.Instant? = nil
        /// Waiters to wake at the next change.
        var waiters: [DispatchSemaphore] = []
    }

    /// Starts `executable` (a path; no `PATH` lookup) with `arguments`, this process's
    /// environment with `environment` laid over it, in `workingDirectory` (this process's when
    /// `nil`). Standard error, output and input go where told; no other descriptor is inherited,
    /// signal dispositions are the defaults and the signal mask is empty.
    ///
    /// - Throws: ``SpawnedProcess/SpawnFailed`` when a pipe cannot be made or `posix_spawn`
    ///   fails (a missing executable, say).
    init(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], workingDirectory: URL? = nil,
        standardInput: ChildInput = .empty, standardOutput: ChildOutput = .discarded,
        standardError: ChildOutput = .discarded
    ) throws {
        let spawned = try Self.spawn(
            executable.path, arguments, environment: environment, workingDirectory: workingDirectory?.path,
            input: standardInput, output: standardOutput, error: standardError)
        identifier = spawned.pid
        let captured = spawned.captured
        state = Mutex(State(outputEnded: captured.isEmpty))
        let fed: (descriptor: Int32, bytes: [UInt8])? = switch (standardInput, spawned.input) {
        case (.bytes(let bytes), let descriptor?): (descriptor, bytes)
        default: nil
        }
        inputEnd = Mutex(fed == nil ? spawned.input ?? -1 : -1)

        Thread.detachNewThread { [self] in reap() }
        if !captured.isEmpty { Thread.detachNewThread { [self] in drain(captured) } }
        if let fed { Thread.detachNewThread { Self.write(fed.bytes, to: fed.descriptor) } }
    }

    deinit {
        closeInput()
    }

    // MARK: State

    /// How it ended, once it has ended and been reaped; `nil` while it runs.
    var termination: Termination? { state.withLock { $0.termination } }

    /// Whether it still runs (has not been reaped).
    var isRunning: Bool { termination == nil }

    /// Its standard output so far (with its standard error when that goes to the same place);
    /// empty unless captured.
    var output: String { state.withLock { String(decoding: $0.output, as: UTF8.self) } }

    /// Its standard error so far, when captured on its own.
    var errorOutput: String { state.withLock { String(decoding: $0.errorOutput, as: UTF8.self) } }

    // MARK: Signals and input

    /// Sends `signal` (SIGTERM, SIGKILL, SIGSTOP, SIGCONT, …) if it has not been reaped yet.
    /// The corresponding C function is `kill(2)`.
    func signal(_ signal: Int32) {
        // Under the lock the reaper takes: once reaped, its pid may belong to another process.
        state.withLock { if $0.termination == nil { _ = kill(identifier, signal) } }
    }

    /// Kills it (SIGKILL) if it still runs.
    func stop() {
        signal(SIGKILL)
    }

    /// Closes its standard input (``ChildInput/held``): the child reads end of file.
    func closeInput() {
        let descriptor = inputEnd.withLock { end in
            defer { end = -1 }
            return end
        }
        if descriptor >= 0 { close(descriptor) }
    }

    // MARK: Waiting (blocking: from async code, call them through `onOwnThread`)

    /// How it ended, once it ends within `seconds` (stretched by ``TimeScale``; `.infinity` for
    /// no bound); `nil` when it still runs then (it is left running).
    func waitForTermination(seconds: Double) -> Termination? {
        wait(until: Self.deadline(seconds)) { $0.termination }
    }

    /// Its output (as ``output``) and when its latest chunk arrived, once `isComplete` holds for
    /// it, within `seconds` (stretched by ``TimeScale``); `nil` when it does not by then or the
    /// output ended without it.
    func waitForOutput(
        seconds: Double, until isComplete: (String) -> Bool
    ) -> (text: String, arrivedAt: ContinuousClock.Instant)? {
        enum Outcome: Sendable {
            case matched(String, ContinuousClock.Instant?)
            case ended
        }
        let outcome = wait(until: Self.deadline(seconds)) { state -> Outcome? in
            let text = String(decoding: state.output, as: UTF8.self)
            if isComplete(text) { return .matched(text, state.lastArrival) }
            return state.outputEnded ? .ended : nil
        }
        guard case .matched(let text, let arrival) = outcome else { return nil }
        return (text, arrival ?? .now)
    }

    /// Whether its captured output and error were drained to their end (the child and whatever
    /// holds its pipes ended, or the child was reaped and nothing was left in them) within
    /// `seconds` (stretched by ``TimeScale``).
    func waitForOutputEnd(seconds: Double) -> Bool {
        wait(until: Self.deadline(seconds)) { $0.outputEnded ? true : nil } ?? false
    }

    /// Its status (``Termination/status``) once it ends within `seconds` (stretched by
    /// ``TimeScale``; waited for off the cooperative pool); killed and `nil` when it does not.
    func waitForExit(seconds: Double) async throws -> Int32? {
        let ended = try await onOwnThread { [self] in waitForTermination(seconds: seconds) }
        guard let ended else {
            stop()
            return nil
        }
        return ended.status
    }

    /// `check` now and after every change until it gives a value or `deadline` passes (then one
    /// last time). It runs outside the lock (it may read the child), on a copy of the state taken
    /// as this waiter registers, so no change between the check and the wait goes unnoticed.
    private func wait<T>(until deadline: DispatchTime, _ check: (State) -> T?) -> T? {
        let wake = DispatchSemaphore(value: 0)
        while true {
            // Left registered when the check holds: the next change signals it once, harmlessly.
            let snapshot = state.withLock { state in
                state.waiters.append(wake)
                return state
            }
            if let value = check(snapshot) { return value }
            if wake.wait(timeout: deadline) == .timedOut {
                let last = state.withLock { state in
                    state.waiters.removeAll { $0 === wake }
                    return state
                }
                return check(last)
            }
        }
    }

    /// Applies `update` and wakes every waiter.
    private func change(_ update: (inout State) -> Void) {
        let waiters = state.withLock { state in
            update(&state)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.signal() }
    }

    private static func deadline(_ seconds: Double) -> DispatchTime {
        let scaled = TimeScale.scaled(seconds)
        return scaled.isFinite && scaled < 1e9 ? .now() + scaled : .distantFuture
    }

    // MARK: The threads

    /// Waits for the child's end without reaping it (`WNOWAIT`), then reaps it under the lock
    /// ``signal(_:)`` takes: until then its pid cannot be given to another process.
    private func reap() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(identifier), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        change { state in
            var raw: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(identifier, &raw, 0) } while result < 0 && errno == EINTR
            state.termination = result == identifier ? Termination(waitStatus: raw) : .waitFailed(errno)
        }
    }

    /// Reads the captured pipes as data comes, until each ends, or until the child has been
    /// reaped and nothing is left in them: everything the child wrote is in a pipe before it
    /// ends, and a grandchild that kept a copy must not hold the reader forever.
    private func drain(_ pipes: [(descriptor: Int32, isError: Bool)]) {
        var open = pipes
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            let reaped = state.withLock { $0.termination != nil }
            var pollers = open.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            // A timeout, so that a reap during the wait is noticed without a wake-up channel.
            let ready = poll(&pollers, nfds_t(pollers.count), reaped ? 0 : 100)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || (ready == 0 && reaped) { break }
            var ended: [Int32] = []
            for (index, poller) in pollers.enumerated() where poller.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(poller.fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    ended.append(poller.fd)
                    continue
                }
                let chunk = buffer[0..<count]
                let isError = open[index].isError
                change { state in
                    if isError { state.errorOutput += chunk } else { state.output += chunk }
                    state.lastArrival = .now
                }
            }
            for descriptor in ended { close(descriptor) }
            open.removeAll { ended.contains($0.descriptor) }
        }
        for pipe in open { close(pipe.descriptor) }
        change { $0.outputEnded = true }
    }

    /// Writes `bytes` to the child's standard input, then closes it. SIGPIPE is blocked on this
    /// thread, so a child that stopped reading makes the write fail with EPIPE instead of ending
    /// the whole test process; the signal is directed at this thread and dropped when it ends.
    private static func write(_ bytes: [UInt8], to descriptor: Int32) {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            offset += count
        }
        close(descriptor)
    }

    // MARK: posix_spawn

    /// `posix_spawn` of `path` with pipes for what is captured or fed. Returns the pid, our end of
    /// its standard input (if it has a pipe) and our ends of the captured pipes.
    private static func spawn(
        _ path: String, _ arguments: [String], environment: [String: String], workingDirectory: String?,
        input: ChildInput, output: ChildOutput, error: ChildOutput
    ) throws -> (pid: pid_t, input: Int32?, captured: [(descriptor: Int32, isError: Bool)]) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The child's copies are closed here once it has them (or the spawn failed); ours on a
        // failure only.
        var childEnds: [Int32] = []
        var ourEnds: [Int32] = []
        defer { for descriptor in childEnds { close(descriptor) } }
        do {
            var inputEnd: Int32?
            switch input {
            case .empty:
                try check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0))
            case .bytes, .held:
                let ends = try makePipe()
                childEnds.append(ends.read)
                ourEnds.append(ends.write)
                inputEnd = ends.write
                try check(posix_spawn_file_actions_adddup2(&actions, ends.read, 0))
            }
            var captured: [(descriptor: Int32, isError: Bool)] = []
            for (target, descriptor) in [(output, Int32(1)), (error, Int32(2))] {
                switch target {
                case .discarded:
                    try check(posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0))
                case .captured:
                    let ends = try makePipe()
                    childEnds.append(ends.write)
                    ourEnds.append(ends.read)
                    captured.append((ends.read, descriptor == 2))
                    try check(posix_spawn_file_actions_adddup2(&actions, ends.write, descriptor))
                case .file(let handle):
                    try check(posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, descriptor))
                case .standardOutput:
                    guard descriptor == 2 else { throw SpawnedProcess.SpawnFailed(code: EINVAL) }
                    try check(posix_spawn_file_actions_adddup2(&actions, 1, 2))
                }
            }
            // Every pipe end is close-on-exec already; this also keeps descriptors that other
            // code opened without the flag from leaking into the child.
            try check(spawnActionsAddCloseFrom(&actions, 3))
            if let workingDirectory {
                try check(spawnActionsAddChangeDirectory(&actions, workingDirectory))
            }

            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            // An empty mask and default dispositions: the spawning thread may block SIGPIPE, and
            // the test process may ignore signals the child relies on.
            var signals = sigset_t()
            sigemptyset(&signals)
            try check(posix_spawnattr_setsigmask(&attributes, &signals))
            sigfillset(&signals)
            try check(posix_spawnattr_setsigdefault(&attributes, &signals))
            try check(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)))

            var merged = ProcessInfo.processInfo.environment
            for (key, value) in environment { merged[key] = value }
            let argv = ([path] + arguments).map { strdup($0) }
            let envp = merged.map { strdup("\($0.key)=\($0.value)") }
            defer {
                for pointer in argv { free(pointer) }
                for pointer in envp { free(pointer) }
            }
            guard !argv.contains(nil), !envp.contains(nil) else { throw SpawnedProcess.SpawnFailed(code: ENOMEM) }
            var pid: pid_t = 0
            try check(posix_spawn(&pid, path, &actions, &attributes, argv + [nil], envp + [nil]))
            return (pid, inputEnd, captured)
        } catch {
            for descriptor in ourEnds { close(descriptor) }
            throw error
        }
    }

    private static func check(_ code: Int32) throws {
        guard code == 0 else { throw SpawnedProcess.SpawnFailed(code: code) }
    }

    /// A pipe whose ends are close-on-exec from the start (so that children spawned meanwhile
    /// by other tests do not inherit them: a stray holder of a write end hides the end of file)
    /// and numbered 3 or above (so that no `dup2` onto 0, 1 or 2 can overwrite another end).
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipeWithFlags(&ends, O_CLOEXEC) == 0 else { throw SpawnedProcess.SpawnFailed(code: errno) }
        for index in 0..<2 where ends[index] < 3 {
            let high = fcntl(ends[index], F_DUPFD_CLOEXEC, 3)
            let code = errno
            close(ends[index])
            guard high >= 0 else {
                close(ends[1 - index])
                throw SpawnedProcess.SpawnFailed(code: code)
            }
            ends[index] = high
        }
        return (ends[0], ends[1])
    }
}

// GNU extensions that glibc declares only under _GNU_SOURCE, which Swift's Glibc module is built
// without; all three are in the C library itself (glibc 2.34 and later for closefrom).

/// `pipe2(2)`.
@_silgen_name("pipe2")
private func pipeWithFlags(_ descriptors: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

/// `posix_spawn_file_actions_addclosefrom_np(3)`: close every descriptor from `from` on.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func spawnActionsAddCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32

/// `posix_spawn_file_actions_addchdir_np(3)`: change to `path` before the exec.
@_silgen_name("posix_spawn_file_actions_addchdir_np")
private func spawnActionsAddChangeDirectory(
    _ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: UnsafePointer<CChar>
) -> Int32
