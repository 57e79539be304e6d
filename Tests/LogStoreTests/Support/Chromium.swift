import Foundation
import Glibc

/// Headless Chromium (Debian's `chromium` package), for the tests that load exported pages in
/// a real browser. Absent on machines without it: those tests skip and say so.
enum Chromium {
    static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The DOM after the page's scripts ran (`--dump-dom`), loading `url` (a `file:` URL, with
    /// its fragment) in a fresh profile under `profile`. Blocking: call it from ``onOwnThread(_:)``.
    /// The browser is killed after `seconds` (stretched by ``TimeScale``), so a stuck run fails the
    /// test instead of hanging it.
    static func dumpDOM(_ url: String, profile: URL, seconds: Double = 30) throws -> String {
        guard let path else { throw ShellError(command: "chromium", status: -1, output: "not installed") }
        // At the lowest priority (`nice` execs it, so the pid stays the browser's): a browser
        // takes both cores for seconds, and the suite's timing-bound tests run beside it.
        let run = try SpawnedProcess.runBlocking(
            URL(fileURLWithPath: "/usr/bin/nice"),
            [
                "-n", "19", path, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                "--user-data-dir=\(profile.path)", "--window-size=1400,900", "--virtual-time-budget=3000",
                "--dump-dom", url,
            ],
            standardError: .discarded, seconds: seconds)
        guard run.termination == .exited(0) else {
            throw ShellError(command: "chromium --dump-dom \(url)", status: run.termination.signal ?? run.status,
                             output: "ended by \(run.termination.signal == nil ? "exit" : "signal (time limit?)")")
        }
        return run.output
    }
}
