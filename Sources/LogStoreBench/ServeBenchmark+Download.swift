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
        let rounds = quick ? 3 : 5
        var exports: [Double] = []
        var downloads: [Double] = []
        var sends: [Double] = []
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

            let whole = try await Self.timedDownload(endpoint, headers: [])
            // Nothing writes the store meanwhile: the download must be the export, byte for byte.
            guard whole.status == 200, whole.bytes == bytes else {
                throw BenchError.failed("/download answered \(whole.status) with \(whole.bytes) bytes, the export wrote \(bytes)")
            }
            downloads.append(Double(bytes) / 1e6 / whole.seconds)
            // Not a figure, what explains it: the kept file again as a resumed download (a
            // range, no export), i.e. the sending alone.
            let resumed = try await Self.timedDownload(endpoint, headers: [("Range", "bytes=0-"), ("If-Range", whole.etag)])
            guard resumed.status == 206, resumed.bytes == bytes else {
                throw BenchError.failed("a resumed /download answered \(resumed.status) with \(resumed.bytes) bytes")
            }
            sends.append(Double(bytes) / 1e6 / resumed.seconds)
        }
        let ours = Measure.median(downloads)
        let export = Measure.median(exports)
        print(String(
            format: "serve: download of %.1f MB: %.1f MB/s over loopback %@; export alone %.1f MB/s %@; "
                + "sending the kept file alone (Range) %.0f MB/s %@",
            Double(bytes) / 1e6, ours, Self.list(downloads), export, Self.list(exports), Measure.median(sends), Self.list(sends)))
        return Figure(
            name: "serve.download_mb_per_s", value: ours, baseline: export, unit: "MB/s",
            baselineDescription: "ours: `/download?format=ndjson` of \(rows) messages read to the end over loopback "
                + "(export into the console's scratch directory, then sent); baseline: `export(to:format: .ndjson)` "
                + "to a file, same store, same run; median of \(rounds) alternated rounds",
            target: "≥ 0.9")
    }

    /// One GET of `/download?format=ndjson` read to its end on a thread of its own: status,
    /// ETag, body bytes, seconds from connecting to the last byte.
    private static func timedDownload(
        _ endpoint: ConsoleEndpoint, headers: [(name: String, value: String)]
    ) async throws -> (status: Int, etag: String, bytes: Int64, seconds: Double) {
        try await ThreadRunner.run {
            var received: Int64 = 0
            let start = Measure.now()
            let head = try LoopbackHTTPClient.get(
                port: endpoint.port, target: "/download?format=ndjson", headers: endpoint.headers + headers,
                deadline: .now + .seconds(600)
            ) { piece in
                received += Int64(piece.count)
                return true
            }
            return (head.status, head.field("ETag") ?? "", received, Measure.seconds(since: start))
        }
    }

    static func list(_ values: [Double]) -> String {
        "[" + values.map { String(format: "%.1f", $0) }.joined(separator: ", ") + "]"
    }
}
