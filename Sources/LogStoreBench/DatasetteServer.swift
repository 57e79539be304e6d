import Foundation
import Glibc

/// Datasette (from PyPI) serving a store's `logs.sqlite`: the baseline of `serve.messages_rps`,
/// the tool one would otherwise point at a SQLite log file to browse it over HTTP.
///
/// Installed once into a virtual environment in the system's temporary directory (beside the
/// benchmark's own directories, but kept between runs so that `--quick` stays quick), and run
/// on the live file as is, without `--immutable`: the store keeps changing under a console.
final class DatasetteServer {
    /// The virtual environment it is installed in.
    static let environment = FileManager.default.temporaryDirectory.appendingPathComponent("logstore-bench-datasette")

    let port: UInt16
    /// The database's name in Datasette's URLs: the file's name without extension.
    let database: String
    private let process: Process
    private let log: URL

    /// The `datasette` executable, installed when missing, or why there is none.
    static func locate() -> Result<URL, BenchSkip> {
        let executable = environment.appendingPathComponent("bin/datasette")
        if access(executable.path, X_OK) == 0 { return .success(executable) }
        guard let python = ExternalTool.find("python3") else { return .failure(BenchSkip("python3 is not installed")) }
        let made = ExternalTool.run(python, ["-m", "venv", "--clear", environment.path])
        guard made.status == 0 else { return .failure(BenchSkip("python3 -m venv failed: \(made.lastLine)")) }
        print("serve: installing Datasette from PyPI into \(environment.path)")
        // Bounded: an unreachable index fails in seconds, not after pip's default retries.
        let pip = environment.appendingPathComponent("bin/pip")
        let installed = ExternalTool.run(
            pip, ["install", "--quiet", "--disable-pip-version-check", "--timeout", "15", "--retries", "1", "datasette"])
        guard installed.status == 0, access(executable.path, X_OK) == 0 else {
            try? FileManager.default.removeItem(at: environment)
            return .failure(BenchSkip("pip install datasette failed (is PyPI reachable?): \(installed.lastLine)"))
        }
        return .success(executable)
    }

    /// Starts `executable` on the database at `path` and waits until it answers.
    /// - Throws: ``BenchError`` when it does not start, or does not answer within 30 s.
    init(executable: URL, database path: URL, logDirectory: URL) throws {
        port = try ExternalTool.freePort()
        database = path.deletingPathExtension().lastPathComponent
        log = logDirectory.appendingPathComponent("datasette-\(port).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw BenchError.failed("cannot create \(log.path)")
        }
        let output = try FileHandle(forWritingTo: log)
        process = Process()
        process.executableURL = executable
        process.arguments = ["serve", path.path, "--host", "127.0.0.1", "--port", String(port)]
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? output.close()
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            guard process.isRunning else {
                throw BenchError.failed("datasette exited \(process.terminationStatus) at start: \(lastLogLine)")
            }
            if let answer = try? LoopbackHTTPClient.fetch(port: port, target: "/-/versions.json", timeout: .seconds(2)),
                answer.head.status == 200
            {
                return
            }
            guard ContinuousClock.now < deadline else {
                stop()
                throw BenchError.failed("datasette did not answer on port \(port) within 30 s: \(lastLogLine)")
            }
            usleep(100_000)
        }
    }

    /// The target (`/logs.json?sql=…&_shape=array`) that runs `sql` and answers its rows as a
    /// JSON array of objects.
    func queryTarget(_ sql: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = sql.addingPercentEncoding(withAllowedCharacters: allowed) ?? sql
        return "/\(database).json?sql=\(encoded)&_shape=array"
    }

    /// Stops the server: SIGTERM, then SIGKILL if it is still there after 5 s (uvicorn waits
    /// for open connections to finish).
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    private var lastLogLine: String {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").last.map(String.init) ?? "(it printed nothing)"
    }

    deinit { stop() }
}
