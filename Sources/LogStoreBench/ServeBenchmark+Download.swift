import Foundation
import LogStore

/// `serve.download_mb_per_s`: the console's `/download?format=ndjson` of the whole store, read
/// to its last byte by a client on loopback, beside `export(to:format:.ndjson)` of the same
/// store to a file in this process.
///
/// The console exports into its scratch directory first (so the download has a length and can
/// resume), then sends the file: the ratio is what sending adds to the export, which should be
/// little next to formatting every message (target ≥ 0.9).
extension ServeBenchmark {
    func download(_ endpoint: ConsoleEndpoint, store: LogStore) async throws -> Figure {
        // Alternated, median of each: the shared machine's noise falls on both alike.
        let rounds = quick ? 2 : 3
        var exports: [Double] = []
        var downloads: [Double] = []
        var bytes: Int64 = 0
        for _ in 0..<rounds {
            let url = directory.appendingPathComponent("serve-export-\(UUID().uuidString).ndjson")
            let start = Measure.now()
            let report = try await store.export(to: url, format: .ndjson)
            let exportSeconds = Measure.seconds(since: start)
            try? FileManager.default.removeItem(at: url)
            guard report.messageCount == rows else {
                throw BenchError.failed("the export wrote \(report.messageCount) of \(rows) messages")
            }
            bytes = report.byteCount
            exports.append(Double(bytes) / 1e6 / exportSeconds)

            let (received, seconds) = try await ThreadRunner.run { () throws -> (Int64, Double) in
                var received: Int64 = 0
                let start = Measure.now()
                let head = try LoopbackHTTPClient.get(
                    port: endpoint.port, target: "/download?format=ndjson", headers: endpoint.headers,
                    deadline: .now + .seconds(600)
                ) { piece in
                    received += Int64(piece.count)
                    return true
                }
                guard head.status == 200 else { throw BenchError.failed("/download answered \(head.status)") }
                return (received, Measure.seconds(since: start))
            }
            // Nothing writes the store meanwhile: the download must be the export, byte for byte.
            guard received == bytes else {
                throw BenchError.failed("/download sent \(received) bytes, the export wrote \(bytes)")
            }
            downloads.append(Double(received) / 1e6 / seconds)
        }
        let ours = Measure.median(downloads)
        let export = Measure.median(exports)
        print(String(
            format: "serve: download of %.1f MB: %.1f MB/s over loopback (export alone %.1f MB/s); rounds %@ vs %@",
            Double(bytes) / 1e6, ours, export, Self.list(downloads), Self.list(exports)))
        return Figure(
            name: "serve.download_mb_per_s", value: ours, baseline: export, unit: "MB/s",
            baselineDescription: "ours: `/download?format=ndjson` of \(rows) messages read to the end over loopback "
                + "(export into the console's scratch directory, then sent); baseline: `export(to:format: .ndjson)` "
                + "to a file, same store, same run; median of \(rounds) alternated rounds",
            target: "≥ 0.9")
    }

    static func list(_ values: [Double]) -> String {
        "[" + values.map { String(format: "%.1f", $0) }.joined(separator: ", ") + "]"
    }
}
