import Foundation
import Glibc
import Testing

/// The loopback OTLP/HTTP logs receiver of the shipping tests: `otlp_receiver.py` (beside this
/// file), which parses every body with opentelemetry-proto as a collector does and writes a line
/// per request. One per test, on a port the kernel picks; ended with SIGTERM (killed past its
/// bound, or when a test throws).
struct OTLPReceiver: Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("otlp_receiver.py")

    /// Whether the `python3` on the PATH imports opentelemetry-proto (checked once): the tests
    /// that need it skip without (`.ci/run` installs it).
    static let isAvailable: Bool = {
        guard let python = LoopbackHTTPServer.python else { return false }
        let check = "import google.protobuf.json_format, opentelemetry.proto.collector.logs.v1.logs_service_pb2"
        return (try? runProcess(python, ["-c", check], killedAfter: 60))?.status == 0
    }()

    static let unavailable: Comment = "python3 cannot import opentelemetry-proto (pip install opentelemetry-proto; .ci/run installs it)"

    /// One request as the receiver saw it (`otlp_receiver.py` documents the fields).
    struct Request: Decodable, Sendable, CustomStringConvertible {
        /// Its place in the order requests arrived, from 0.
        var turn: Int
        /// The status it was answered.
        var status: Int
        var records: Int
        /// The messages' `logstore.id`s, in order.
        var ids: [Int64]
        /// The tasks' `logstore.task.row_id`s, in order.
        var taskIDs: [Int64]
        /// Each record's key (`m<id>`, `t<row id>`, `gap`), aligned with ``severities``.
        var keys: [String]
        var severities: [Int]
        /// Trace and span id (hex) by record key, for the records that carry them.
        var traces: [String: [String]]
        var resource: [String: String]
        /// When it arrived and when its answer was written (the receiver's monotonic clock, s).
        var received: Double
        var answered: Double
        var encoding: String
        /// Its header fields, names in lower case.
        var headers: [String: String]
        var retryAfter: Double?
        /// Why the body did not parse.
        var error: String?

        private enum CodingKeys: String, CodingKey {
            case turn, status, records, ids, taskIDs = "task_ids", keys, severities, traces, resource, received
            case answered, encoding, headers, retryAfter = "retry_after", error
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            turn = try container.decode(Int.self, forKey: .turn)
            status = try container.decode(Int.self, forKey: .status)
            records = try container.decodeIfPresent(Int.self, forKey: .records) ?? 0
            ids = try container.decodeIfPresent([Int64].self, forKey: .ids) ?? []
            taskIDs = try container.decodeIfPresent([Int64].self, forKey: .taskIDs) ?? []
            keys = try container.decodeIfPresent([String].self, forKey: .keys) ?? []
            severities = try container.decodeIfPresent([Int].self, forKey: .severities) ?? []
            traces = try container.decodeIfPresent([String: [String]].self, forKey: .traces) ?? [:]
            resource = try container.decodeIfPresent([String: String].self, forKey: .resource) ?? [:]
            received = try container.decode(Double.self, forKey: .received)
            answered = try container.decode(Double.self, forKey: .answered)
            encoding = try container.decode(String.self, forKey: .encoding)
            headers = try container.decode([String: String].self, forKey: .headers)
            retryAfter = try container.decodeIfPresent(Double.self, forKey: .retryAfter)
            error = try container.decodeIfPresent(String.self, forKey: .error)
        }

        var description: String {
            "#\(turn) \(status) \(records) records (messages \(ids.first.map(String.init) ?? "-")…\(ids.last.map(String.init) ?? "-"), "
                + "\(taskIDs.count) tasks)\(error.map { " error: \($0)" } ?? "")"
        }
    }

    /// The receiver gave no port within its bound, or ended early.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `http://127.0.0.1:<port>/v1/logs`.
    let url: URL
    private let process: ChildProcess
    private let output: URL

    /// Starts a receiver whose files go in `directory`; `failing` is its `--fail` spec
    /// (`"503,429@2,400"`). Runs `body`, then ends it with SIGTERM and checks it exited with 0.
    static func with<T>(
        in directory: URL, failing: String = "", _ body: (OTLPReceiver) async throws -> T
    ) async throws -> T {
        let receiver = try await start(in: directory, failing: failing)
        let result: T
        do {
            result = try await body(receiver)
        } catch {
            receiver.process.stop()
            throw error
        }
        try await receiver.terminate()
        return result
    }

    private static func start(in directory: URL, failing: String) async throws -> OTLPReceiver {
        guard let python = LoopbackHTTPServer.python else { throw Failure(description: "no python3 on the PATH") }
        let portFile = directory.appendingPathComponent("otlp-port-\(UUID().uuidString)")
        let output = directory.appendingPathComponent("otlp-requests-\(UUID().uuidString).jsonl")
        let process = try ChildProcess(URL(fileURLWithPath: python), [
            script.path, "--port-file", portFile.path, "--out", output.path, "--fail", failing,
            // A receiver a crashed test left behind ends by itself.
            "--lifetime", String(TimeScale.scaled(600)),
        ])
        // Python starts and imports protobuf in well under a second on a quiet machine.
        let ports: [Int] = try await watchOnThread(seconds: 60) { found in
            // Written whole (a temporary file renamed): a port read is the port.
            if let port = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap({ Int($0) }) { found = [port] }
            return !found.isEmpty
        }
        guard let port = ports.first, let url = URL(string: "http://127.0.0.1:\(port)/v1/logs") else {
            process.stop()
            throw Failure(description: "otlp_receiver.py wrote no port within 60 s")
        }
        return OTLPReceiver(url: url, process: process, output: output)
    }

    /// SIGTERM, and the exit status within 20 s (`TimeScale`d): the receiver must exit with 0.
    private func terminate() async throws {
        process.signal(SIGTERM)
        let status = try await process.waitForExit(seconds: 20)
        guard status == 0 else {
            throw Failure(description: "otlp_receiver.py " + (status.map { "exited with \($0) on SIGTERM" } ?? "outlived SIGTERM by 20 s"))
        }
    }

    /// The requests it has answered so far, in the order it answered them.
    func requests() throws -> [Request] {
        guard let data = FileManager.default.contents(atPath: output.path) else { return [] }
        let decoder = JSONDecoder()
        // A line being written may not have its end yet: only whole lines count.
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        lines.removeLast()
        return try lines.map { try decoder.decode(Request.self, from: Data($0)) }
    }

    /// The requests once `isDone` says they are all there, checked every 5 ms for at most
    /// `seconds` (`TimeScale`d); throws ``TimeLimitExceeded`` with what came when they are not.
    func requests(
        within seconds: Double, until isDone: @escaping @Sendable ([Request]) -> Bool
    ) async throws -> [Request] {
        let receiver = self
        let requests: [Request] = try await watchOnThread(seconds: seconds) { requests in
            requests = try receiver.requests()
            return isDone(requests)
        }
        guard isDone(requests) else {
            throw Failure(description: "gave up after \(seconds) s (× time scale \(TimeScale.factor)) waiting for requests; "
                + "came: \(requests.map(\.description).joined(separator: "; "))")
        }
        return requests
    }

    /// What `otlp_receiver.py --parse` makes of `body`: its exit status (0 parsed, 1 refused),
    /// its output (the summary and the parsed request as Protobuf's JSON) and its errors.
    static func parse(_ body: [UInt8], in directory: URL) async throws -> ProcessOutput {
        guard let python = LoopbackHTTPServer.python else { throw Failure(description: "no python3 on the PATH") }
        let file = directory.appendingPathComponent("otlp-body-\(UUID().uuidString).json")
        try Data(body).write(to: file)
        return try await onOwnThread { try runProcess(python, [script.path, "--parse", file.path], killedAfter: 60) }
    }
}
