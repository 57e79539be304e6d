import Foundation
import Glibc

/// A real HTTP server on 127.0.0.1 for the URLSession tests: Python's `http.server`, started per
/// test on a port the kernel picks, below normal priority, and killed when the test ends.
/// Absent where there is no `python3`: those tests skip and say so.
struct LoopbackHTTPServer: Sendable {
    static let python: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        .split(separator: ":").map { "\($0)/python3" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Bytes of `/large.bin` (random, so they do not compress): a few megabytes, several hundred
    /// chunks on Linux.
    static let largeBodySize = 2_000_000
    /// The body of `/ok.json`; `access_token` is a field the store's redaction hides by default.
    static let okBody = #"{"hello":"world","access_token":"s3cret-response"}"#

    /// The server: `/ok.json` (200, JSON), `/missing` (404), `/fail` (500), `/redirect` (302 to
    /// `/ok.json`), `/large.bin`, `/slow` (answers after 120 s) and POST `/echo` (201, the body
    /// back as JSON). It prints its port, then serves until killed.
    static let script = """
        import http.server, os
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def reply(self, code, body, ctype="text/plain", extra=()):
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for name, value in extra: self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
            def do_GET(self):
                if self.path == "/ok.json": self.reply(200, b'\(okBody)', "application/json")
                elif self.path == "/fail": self.reply(500, b"boom")
                elif self.path == "/redirect": self.reply(302, b"", extra=[("Location", "/ok.json")])
                elif self.path == "/large.bin": self.reply(200, os.urandom(\(largeBodySize)), "application/octet-stream")
                elif self.path == "/slow":
                    import time; time.sleep(120); self.reply(200, b"late")
                else: self.reply(404, b"not found")
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.reply(201, b'{"received":' + body + b'}', "application/json")
            def log_message(self, *args): pass
        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True
        server = Server(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    let port: Int
    /// The server's process (`nice` execs python, so it is python's).
    private let process: ChildProcess

    /// `path` on this server.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Starts a server in `directory` (its script goes there), runs `body`, then kills it.
    static func with<T>(in directory: URL, _ body: (LoopbackHTTPServer) async throws -> T) async throws -> T {
        let server = try await onOwnThread { try start(in: directory) }
        defer { server.stop() }
        return try await body(server)
    }

    /// Blocking: call it on a thread of its own. Gives up after 60 s without a port (a bound, not
    /// a wait: it prints its port within a second on a quiet machine).
    private static func start(in directory: URL) throws -> LoopbackHTTPServer {
        guard let python else { throw ShellError(command: "python3", status: -1, output: "not installed") }
        let scriptURL = directory.appendingPathComponent("loopback_server.py")
        try Data(script.utf8).write(to: scriptURL)
        // Niced, but not to 19 as Chromium is: the server does little work, all of it on the
        // test's critical path, and at 19 a suite that keeps both cores busy starved its start
        // past the bound below.
        let process = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/nice"), ["-n", "5", python, scriptURL.path], standardOutput: .captured)
        // `nil` when it ended before printing its port, or printed none within the bound.
        let printed = process.waitForOutput(seconds: 60) { $0.contains("\n") }?.text ?? process.output
        let text = printed.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text), port > 0 else {
            process.stop()
            _ = process.waitForTermination(seconds: SpawnedProcess.killGraceSeconds)
            throw ShellError(command: "python3 loopback_server.py", status: -1, output: "no port: \(text)")
        }
        return LoopbackHTTPServer(port: port, process: process)
    }

    /// Kills the server. Not waited for: SIGKILL cannot be ignored, and its reaper thread
    /// reaps it.
    func stop() {
        process.stop()
    }
}
