import Foundation
import Glibc

/// `wrk` (Debian's package) as the load generator of `serve.messages_rps`: a separate process,
/// so the clients' CPU is not the server's, keeping its connections alive as a browser would.
enum WrkLoad {
    /// What one run reported.
    struct Result {
        var requestsPerSecond: Double
        var requests: Int
        /// Latency percentiles, ms.
        var p50: Double
        var p99: Double
        /// Responses outside 2xx and 3xx.
        var non2xx: Int
        /// Connect, read, write and timeout errors added up.
        var socketErrors: Int

        var summary: String {
            String(format: "%.0f req/s, p50 %.2f ms, p99 %.2f ms", requestsPerSecond, p50, p99)
                + (non2xx + socketErrors > 0 ? ", \(non2xx) non-2xx, \(socketErrors) socket errors" : "")
        }
    }

    /// The `wrk` executable, installed from Debian's packages when missing (as root), or why
    /// there is none.
    static func locate() -> Swift.Result<URL, BenchSkip> {
        if let found = ExternalTool.find("wrk") { return .success(found) }
        guard getuid() == 0, let aptGet = ExternalTool.find("apt-get") else {
            return .failure(BenchSkip("wrk is not installed (apt-get install wrk) and this is not root"))
        }
        // A fresh machine's package lists may be missing or stale: update once, then retry.
        var outcome = ExternalTool.run(aptGet, ["install", "-y", "-qq", "wrk"])
        if outcome.status != 0 {
            _ = ExternalTool.run(aptGet, ["update", "-qq"])
            outcome = ExternalTool.run(aptGet, ["install", "-y", "-qq", "wrk"])
        }
        guard outcome.status == 0, let found = ExternalTool.find("wrk") else {
            return .failure(BenchSkip("apt-get install wrk failed: \(outcome.lastLine)"))
        }
        return .success(found)
    }

    /// Loads `url` with `connections` kept-alive connections from `threads` threads for
    /// `seconds`, each request carrying `headers`.
    static func run(
        _ wrk: URL, url: String, headers: [String] = [], threads: Int, connections: Int, seconds: Int
    ) throws -> Result {
        var arguments = ["-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--latency"]
        for header in headers { arguments += ["-H", header] }
        arguments.append(url)
        let outcome = ExternalTool.run(wrk, arguments)
        guard outcome.status == 0 else { throw BenchError.failed("wrk \(url) exited \(outcome.status): \(outcome.lastLine)") }
        return try parse(outcome.output)
    }

    /// Reads wrk's report: `Requests/sec:`, the latency distribution (`--latency`), the totals
    /// and the error lines it prints only when there were errors.
    static func parse(_ output: String) throws -> Result {
        var result = Result(requestsPerSecond: 0, requests: 0, p50: 0, p99: 0, non2xx: 0, socketErrors: 0)
        var sawRate = false
        for line in output.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
            guard let first = words.first else { continue }
            switch first {
            case "Requests/sec:":
                guard words.count > 1, let rate = Double(words[1]) else { continue }
                result.requestsPerSecond = rate
                sawRate = true
            case "50%": result.p50 = words.count > 1 ? milliseconds(words[1]) ?? 0 : 0
            case "99%": result.p99 = words.count > 1 ? milliseconds(words[1]) ?? 0 : 0
            case "Non-2xx": result.non2xx = Int(words.last ?? "") ?? 0
            case "Socket":
                // `Socket errors: connect 0, read 0, write 0, timeout 0`
                result.socketErrors = words.compactMap { Int($0) }.reduce(0, +)
            default:
                if words.count > 2, words[1] == "requests", words[2] == "in", let count = Int(first) {
                    result.requests = count
                }
            }
        }
        guard sawRate else { throw BenchError.failed("wrk printed no Requests/sec:\n\(output)") }
        return result
    }

    /// `812.00us`, `1.52ms`, `2.01s`, `1.00m` in milliseconds.
    static func milliseconds(_ text: String) -> Double? {
        for (suffix, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0), ("m", 60_000.0)] where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { $0 * scale }
        }
        return nil
    }
}

/// Why a figure was left out of this run, printed in its place.
struct BenchSkip: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}

/// Finding and running the programs a figure compares with.
enum ExternalTool {
    /// What a finished program printed.
    struct Outcome {
        var status: Int32
        var output: String

        /// Its last line, for a one-line reason.
        var lastLine: String {
            output.split(separator: "\n").last.map(String.init) ?? "(nothing printed)"
        }
    }

    /// `name` on `PATH`, if it is there and executable.
    static func find(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return URL(fileURLWithPath: candidate) }
        }
        return nil
    }

    /// Runs `executable` to its end, standard output and error together.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return Outcome(status: -1, output: "\(executable.path) did not start: \(error)")
        }
        // Read before waiting: a child that fills the pipe would otherwise never end.
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (bound, read, released), for a
    /// server that takes its port as an argument.
    static func freePort() throws -> UInt16 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError.failed("socket() failed (errno \(errno))") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw BenchError.failed("no free port on 127.0.0.1 (errno \(errno))") }
        return UInt16(bigEndian: address.sin_port)
    }
}
