import Dispatch
import Foundation
import Glibc
import Synchronization

/// Headless Chromium driven through the DevTools protocol over a pipe
/// (`--remote-debugging-pipe`), for the tests that need a page that stays alive: a live console
/// with an open EventSource, which `--dump-dom` (``Chromium``) cannot wait for.
///
/// Chromium reads commands on its fd 3 and writes answers and events on its fd 4, each a JSON
/// object ended by a NUL byte. One thread of the session's own reads fd 4 for the session's
/// whole life and files each answer under its command's `id`; every command waits for its answer
/// on a thread of its own, bounded, so nothing here blocks Swift's cooperative pool.
///
/// ```swift
/// try await ChromiumSession.withBrowser(in: directory) { browser in
///     try await browser.open(console.url.absoluteString + "#messages")
///     try await browser.waitUntil(js: "document.querySelectorAll('tr').length > 0", seconds: 10)
/// }
/// ```
final class ChromiumSession: Sendable {
    /// Something the browser did not do as asked: its words, or why it did not answer.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The browser's pid, also the id of its process group (it leads one of its own).
    let pid: pid_t
    /// Our end of the pipe Chromium reads commands from (its fd 3).
    private let commands: Int32
    /// Chromium's standard error, for the failure message when it does not start.
    private let log: URL
    /// What the reader thread and the callers share.
    private let inbox: Inbox

    /// The width and height of the page, in CSS pixels (the screenshots' size too).
    static let viewport = (width: 1400, height: 900)

    private init(pid: pid_t, commands: Int32, log: URL, inbox: Inbox) {
        self.pid = pid
        self.commands = commands
        self.log = log
        self.inbox = inbox
    }

    // MARK: Lifecycle

    /// Starts a browser with a fresh profile under `directory`, runs `body` with it and closes
    /// it, whether `body` threw or not: no browser outlives its test.
    static func withBrowser<T>(
        in directory: URL, seconds: Double = 30, _ body: (ChromiumSession) async throws -> T
    ) async throws -> T {
        try await asHeavyTest {
            let browser = try await start(in: directory, seconds: seconds)
            let result: T
            do {
                result = try await body(browser)
            } catch {
                await browser.close()
                throw error
            }
            await browser.close()
            return result
        }
    }

    /// Starts Chromium (its profile and log under `directory`) and waits, at most `seconds`
    /// (stretched by ``TimeScale``), until it answers on the pipe; killed when it does not.
    static func start(in directory: URL, seconds: Double = 30) async throws -> ChromiumSession {
        try await blocking { try startBlocking(in: directory, seconds: seconds) }
    }

    /// Asks the browser to close (`Browser.close`), waits a bounded time for it to end, then
    /// kills its whole process group (SIGKILL) — the browser if it did not end, and any helper
    /// process it left — and reaps it. Safe to call more than once.
    func close(seconds: Double = 10) async {
        let session = self
        _ = try? await Self.blocking { session.closeBlocking(seconds: seconds) }
    }

    deinit {
        // A session dropped without close() (a test bug): never leave a browser running. The
        // pid cannot belong to anyone else: it is only reaped by closeBlocking, which sets
        // `reaped` first.
        if !inbox.state.withLock({ $0.reaped }) { kill(-pid, SIGKILL) }
    }

    // MARK: The page

    /// Opens `url` in the session's page (a new target on the first call, the same one after),
    /// and waits until its document has loaded.
    func open(_ url: String, seconds: Double = 30) async throws {
        let session = self
        try await Self.blocking { try session.openBlocking(url, seconds: seconds) }
    }

    /// Evaluates `js` in the page (`Runtime.evaluate`, awaiting a promise) and returns its value:
    /// a string as it is, `nil` for `undefined` or `null`, anything else as JSON text
    /// (`"300"`, `"true"`, `["a","b"]`). Throws when the script throws.
    func evaluate(_ js: String, seconds: Double = 10) async throws -> String? {
        let session = self
        return try await Self.blocking { try session.evaluateBlocking(js, seconds: seconds) }
    }

    /// Evaluates `js` every 100 ms until it gives `true`, for at most `seconds` (stretched by
    /// ``TimeScale``); throws what it last gave (and the page's errors) when it never does. A
    /// script that throws counts as "not yet": the page may be between two documents.
    func waitUntil(js: String, seconds: Double) async throws {
        let session = self
        try await Self.blocking { try session.waitUntilBlocking(js: js, seconds: seconds) }
    }

    /// Writes a PNG of the page's viewport (`Page.captureScreenshot`) to `file`.
    func screenshot(to file: URL, seconds: Double = 20) async throws {
        let session = self
        try await Self.blocking {
            let result = try session.call("Page.captureScreenshot", ["format": "png"], inPage: true, seconds: seconds)
            guard let text = result["data"] as? String, let png = Data(base64Encoded: text) else {
                throw Failure(description: "Page.captureScreenshot answered without base64 data")
            }
            try png.write(to: file)
        }
    }

    /// The uncaught exceptions and `console.error` calls of the page so far (at most 50), for
    /// failure messages.
    var pageErrors: [String] { inbox.state.withLock { $0.pageErrors } }
}

// MARK: - Blocking work, each call on a thread of its own

extension ChromiumSession {
    /// Runs blocking `work` on a thread of its own (``onOwnThread(_:)``) with SIGPIPE blocked on
    /// that thread: a write to the pipe of a browser that died then fails with EPIPE instead of
    /// raising SIGPIPE, whose default action would end the whole test process. The signal is
    /// directed at the thread, so it stays pending there and is dropped when the thread ends.
    fileprivate static func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await onOwnThread {
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &signals, nil)
            return try work()
        }
    }

    fileprivate static func startBlocking(in directory: URL, seconds: Double) throws -> ChromiumSession {
        guard let chromium = Chromium.path else { throw Failure(description: "chromium is not installed") }
        let profile = directory.appendingPathComponent("chromium-profile-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("chromium-\(UUID().uuidString).log")

        // Two pipes, close-on-exec from the start so that no other child this process spawns
        // meanwhile inherits them (a stray holder of the write end would hide the browser's
        // end of file), each end moved to 10 or above so that the two dup2 calls below cannot
        // overwrite one another (dup2(a, 3) would close a `b` that happened to be 3).
        let toBrowser = try Self.pipe()
        let fromBrowser = try Self.pipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // dup2 clears close-on-exec on the copy: fds 3 and 4 are the only pipe ends it keeps.
        posix_spawn_file_actions_adddup2(&actions, toBrowser.read, 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser.write, 4)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A process group of its own, so close() can kill the renderers and helpers with it;
        // an empty signal mask, since the spawning thread blocks SIGPIPE (see `blocking`).
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK))

        // At the lowest priority, as Chromium.dumpDOM (`nice` execs it, so the pid stays the
        // browser's): a browser takes both cores for seconds beside the suite's timed tests.
        let arguments = [
            "/usr/bin/nice", "-n", "19", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-extensions", "--user-data-dir=\(profile.path)", "--remote-debugging-pipe",
            "--window-size=\(viewport.width),\(viewport.height)", "about:blank",
        ]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        // The browser's ends are its own now; ours must not keep its end of file away.
        Glibc.close(toBrowser.read)
        Glibc.close(fromBrowser.write)
        guard spawned == 0 else {
            Glibc.close(toBrowser.write)
            Glibc.close(fromBrowser.read)
            throw SpawnedProcess.SpawnFailed(code: spawned)
        }

        let inbox = Inbox()
        let messages = fromBrowser.read
        Thread.detachNewThread { inbox.read(from: messages) }
        let session = ChromiumSession(pid: pid, commands: toBrowser.write, log: log, inbox: inbox)
        do {
            _ = try session.call("Browser.getVersion", inPage: false, seconds: seconds)
        } catch {
            session.closeBlocking(seconds: 1)
            throw Failure(description: "chromium did not start: \(error)\n\(session.logTail())")
        }
        return session
    }

    /// A pipe whose two ends are close-on-exec and numbered 10 or above.
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipeDescriptors(&ends, O_CLOEXEC) == 0 else { throw SpawnedProcess.SpawnFailed(code: errno) }
        var moved: [Int32] = []
        for end in ends {
            let high = fcntl(end, F_DUPFD_CLOEXEC, 10)
            let code = errno
            Glibc.close(end)
            guard high >= 0 else {
                for other in moved { Glibc.close(other) }
                throw SpawnedProcess.SpawnFailed(code: code)
            }
            moved.append(high)
        }
        return (moved[0], moved[1])
    }

    fileprivate func closeBlocking(seconds: Double) {
        let first = inbox.state.withLock { state -> Bool in
            defer { state.closing = true }
            return !state.closing
        }
        guard first else { return }
        if !inbox.state.withLock({ $0.ended }) {
            // The answer may never come (the browser closes right after sending it, or is
            // stuck): the end of the pipe, awaited below, is what tells that it ended.
            _ = try? call("Browser.close", inPage: false, seconds: 2, whileClosing: true)
        }
        let deadline = Date().addingTimeInterval(TimeScale.scaled(seconds))
        while !inbox.state.withLock({ $0.ended }), Date() < deadline { usleep(20_000) }
        // The browser is alive or a zombie (not reaped yet), so its pid still names our group.
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        let reapDeadline = Date().addingTimeInterval(TimeScale.scaled(5))
        while Date() < reapDeadline {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            usleep(10_000)
        }
        inbox.state.withLock { $0.reaped = true }
        Glibc.close(commands)
    }

    fileprivate func openBlocking(_ url: String, seconds: Double) throws {
        if inbox.state.withLock({ $0.pageSession }) == nil {
            let created = try call("Target.createTarget", ["url": "about:blank"], inPage: false, seconds: seconds)
            guard let target = created["targetId"] as? String else {
                throw Failure(description: "Target.createTarget answered without a targetId")
            }
            // Flattened: the page's commands go over the same pipe, tagged with its sessionId.
            let attached = try call(
                "Target.attachToTarget", ["targetId": target, "flatten": true], inPage: false, seconds: seconds)
            guard let session = attached["sessionId"] as? String else {
                throw Failure(description: "Target.attachToTarget answered without a sessionId")
            }
            inbox.state.withLock { $0.pageSession = session }
            // Runtime events carry the page's exceptions and console errors (kept for failure
            // messages); a fixed viewport makes the screenshots the same size on every machine.
            _ = try call("Runtime.enable", inPage: true, seconds: seconds)
            _ = try call(
                "Emulation.setDeviceMetricsOverride",
                ["width": Self.viewport.width, "height": Self.viewport.height, "deviceScaleFactor": 1, "mobile": false],
                inPage: true, seconds: seconds)
        }
        let navigated = try call("Page.navigate", ["url": url], inPage: true, seconds: seconds)
        if let error = navigated["errorText"] as? String, !error.isEmpty {
            throw Failure(description: "Page.navigate to \(url): \(error)")
        }
        // Page.navigate answers once the navigation is under way; the script runs after the
        // document (and its deferred script) loaded.
        try waitUntilBlocking(js: "location.href !== 'about:blank' && document.readyState === 'complete'", seconds: seconds)
    }

    fileprivate func evaluateBlocking(_ js: String, seconds: Double) throws -> String? {
        let answer = try call(
            "Runtime.evaluate", ["expression": js, "returnByValue": true, "awaitPromise": true], inPage: true,
            seconds: seconds)
        if let details = answer["exceptionDetails"] as? [String: Any] {
            let exception = (details["exception"] as? [String: Any])?["description"] as? String
            throw Failure(description: "the script threw: \(exception ?? details["text"] as? String ?? "an exception")")
        }
        guard let result = answer["result"] as? [String: Any], let type = result["type"] as? String else {
            throw Failure(description: "Runtime.evaluate answered without a result")
        }
        switch (type, result["value"]) {
        case ("undefined", _), (_, nil), (_, is NSNull): return nil
        case (_, let text as String): return text
        case ("boolean", let flag as Bool): return flag ? "true" : "false"
        case (_, let value?):
            let json = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
            return String(decoding: json, as: UTF8.self)
        }
    }

    fileprivate func waitUntilBlocking(js: String, seconds: Double) throws {
        let deadline = Date().addingTimeInterval(TimeScale.scaled(seconds))
        var last = "nothing yet"
        while true {
            do {
                let value = try evaluateBlocking(js, seconds: max(1, deadline.timeIntervalSinceNow))
                if value == "true" { return }
                last = value ?? "undefined"
            } catch let failure as Failure {
                // Thrown by the script (the page is between documents, an element is not
                // there yet): try again. A browser that ended cannot come back: stop now.
                last = failure.description
                if inbox.state.withLock({ $0.ended }) { throw failure }
            }
            guard Date() < deadline else {
                let errors = pageErrors
                throw Failure(description: """
                    gave up after \(TimeScale.scaled(seconds)) s waiting for \(js) (it last gave \(last))\
                    \(errors.isEmpty ? "" : "; the page's errors: " + errors.joined(separator: " | "))
                    """)
            }
            usleep(100_000)
        }
    }

    /// Sends `method` with `parameters` (to the page's session when `inPage`) and waits at most
    /// `seconds` (stretched by ``TimeScale``) for its answer's `result`; throws its `error`.
    fileprivate func call(
        _ method: String, _ parameters: [String: Any] = [:], inPage: Bool, seconds: Double, whileClosing: Bool = false
    ) throws -> [String: Any] {
        let (id, answered, session) = try inbox.state.withLock { state in
            guard !state.ended else { throw Failure(description: "chromium has ended; cannot send \(method)") }
            guard whileClosing || !state.closing else { throw Failure(description: "the session is closed; cannot send \(method)") }
            let id = state.nextID
            state.nextID += 1
            let answered = DispatchSemaphore(value: 0)
            state.waiting[id] = answered
            return (id, answered, state.pageSession)
        }
        var command: [String: Any] = ["id": id, "method": method, "params": parameters]
        if inPage {
            guard let session else { throw Failure(description: "\(method) needs a page: call open(_:) first") }
            command["sessionId"] = session
        }
        var bytes = Array(try JSONSerialization.data(withJSONObject: command))
        bytes.append(0)
        do {
            try writeAll(bytes)
        } catch {
            _ = inbox.state.withLock { $0.waiting.removeValue(forKey: id) }
            throw error
        }
        if answered.wait(timeout: .now() + TimeScale.scaled(seconds)) == .timedOut {
            _ = inbox.state.withLock { $0.waiting.removeValue(forKey: id) }
            throw Failure(description: "no answer to \(method) in \(TimeScale.scaled(seconds)) s")
        }
        guard let answer = inbox.state.withLock({ $0.answers.removeValue(forKey: id) }) else {
            throw Failure(description: "chromium ended before it answered \(method)")
        }
        guard let message = try JSONSerialization.jsonObject(with: answer) as? [String: Any] else {
            throw Failure(description: "the answer to \(method) is not a JSON object")
        }
        if let error = message["error"] as? [String: Any] {
            throw Failure(description: "\(method): \(error["message"] as? String ?? "error") \(error["data"] as? String ?? "")")
        }
        return message["result"] as? [String: Any] ?? [:]
    }

    /// Writes every byte to the command pipe (a large command may take more than one write).
    private func writeAll(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot write to chromium: \(String(cString: strerror(errno)))")
            }
            sent += count
        }
    }

    /// The last lines of Chromium's standard error.
    private func logTail() -> String {
        guard let data = try? Data(contentsOf: log) else { return "(no log)" }
        return String(decoding: data.suffix(2_000), as: UTF8.self)
    }
}

// MARK: - The reader

/// What the reader thread and the callers of one session share: the answers by command id,
/// who waits for which, and the session's state.
private final class Inbox: Sendable {
    struct State {
        var nextID = 1
        /// The callers waiting, by the id of their command.
        var waiting: [Int: DispatchSemaphore] = [:]
        /// The answers (whole messages) not yet taken by their caller.
        var answers: [Int: Data] = [:]
        /// The session of the page target, once one is attached.
        var pageSession: String?
        var pageErrors: [String] = []
        /// The message pipe reached its end: the browser exited (or closed it).
        var ended = false
        /// close() began: no command but Browser.close goes out.
        var closing = false
        /// The browser was reaped: its pid may name another process from now on.
        var reaped = false
    }

    let state = Mutex(State())

    /// Reads NUL-ended messages from `descriptor` until its end, files each answer and wakes
    /// its caller; at the end, wakes everyone still waiting (they find no answer) and closes it.
    func read(from descriptor: Int32) {
        var pending: [UInt8] = []
        var scanned = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending += buffer[0..<count]
            // A screenshot's answer is megabytes long: scan only the bytes not scanned yet.
            while let end = pending[scanned...].firstIndex(of: 0) {
                file(Data(pending[..<end]))
                pending.removeSubrange(...end)
                scanned = 0
            }
            scanned = pending.count
        }
        close(descriptor)
        let stranded = state.withLock { state -> [DispatchSemaphore] in
            state.ended = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for waiter in stranded { waiter.signal() }
    }

    /// Files one message: an answer goes to its caller; an exception or console error of the
    /// page is kept; every other event is dropped.
    private func file(_ message: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: message) as? [String: Any] else { return }
        if let id = object["id"] as? Int {
            let waiter = state.withLock { state -> DispatchSemaphore? in
                guard let waiter = state.waiting.removeValue(forKey: id) else { return nil }
                state.answers[id] = message
                return waiter
            }
            waiter?.signal()
            return
        }
        let parameters = object["params"] as? [String: Any] ?? [:]
        let error: String?
        switch object["method"] as? String {
        case "Runtime.exceptionThrown":
            let details = parameters["exceptionDetails"] as? [String: Any] ?? [:]
            error = (details["exception"] as? [String: Any])?["description"] as? String ?? details["text"] as? String
        case "Runtime.consoleAPICalled" where parameters["type"] as? String == "error":
            let arguments = parameters["args"] as? [[String: Any]] ?? []
            error = "console.error: " + arguments.map { "\($0["value"] ?? $0["description"] ?? "?")" }.joined(separator: " ")
        default:
            error = nil
        }
        if let error {
            state.withLock { state in
                if state.pageErrors.count < 50 { state.pageErrors.append(error) }
            }
        }
    }
}

/// `pipe2(2)`, which Glibc's module map leaves out (it is a GNU extension).
@_silgen_name("pipe2")
private func pipeDescriptors(_ descriptors: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32
