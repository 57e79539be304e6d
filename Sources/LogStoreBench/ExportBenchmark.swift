import Foundation
import LogStore

/// `export.text_mb_per_s`, `export.ndjson_mb_per_s` and `export.html_s`: the streaming exports of
/// the benchmark's store (the generated rows, filled as `ingest` fills it), beside a naive C
/// program that selects the same rows from the naive schema and `fprintf`s each one.
struct ExportBenchmark {
    let rows: Int
    let directory: URL
    /// The messages of the HTML figure (and of the text export it is compared with).
    static let htmlRows = 100_000

    func run() async throws -> [Figure] {
        let storeURL = directory.appendingPathComponent("export.logstore")
        let naivePath = directory.appendingPathComponent("export-naive.sqlite").path
        _ = try await SearchBenchmark.ingest(rows: rows, at: storeURL, searchIndex: false)
        _ = try CBaselineProcess.insert(rows: rows, path: naivePath)
        let store = try await LogStore(storeURL: storeURL, options: [.readonly])
        var figures: [Figure] = []
        do {
            for (format, json) in [(ExportFormat.text, false), (.ndjson, true)] {
                let ours = try await export(store, format)
                let output = directory.appendingPathComponent("naive-export-\(format.rawValue)").path
                let naive = try CBaselineProcess.export(json: json, path: naivePath, output: output)
                try? FileManager.default.removeItem(atPath: output)
                let naiveRate = Double(naive.bytes) / 1e6 / naive.seconds
                print(String(
                    format: "export: %@ %.1f MB in %.2f s (%.2f s of CPU); naive C %.1f MB in %.2f s", format.rawValue,
                    Double(ours.bytes) / 1e6, ours.seconds, ours.cpuSeconds, Double(naive.bytes) / 1e6, naive.seconds))
                figures.append(Figure(
                    name: "export.\(format.rawValue)_mb_per_s", value: Double(ours.bytes) / 1e6 / ours.seconds,
                    baseline: naiveRate, unit: "MB/s",
                    baselineDescription: json
                        ? "C: `SELECT … ORDER BY id` on the naive schema, one `fprintf` per row of a JSON object "
                            + "(strings escaped a character at a time, metadata copied as stored), fsync; ours: "
                            + "`.ndjson` of \(rows) messages (every field, sorted metadata), fsync, output MB/s"
                        : "C: `SELECT … ORDER BY id` on the naive schema, one `fprintf` per row (time, level, label, "
                            + "text, metadata JSON, file:line, nothing escaped), fsync; ours: `.text` of \(rows) "
                            + "messages (escaped, metadata as key=value), fsync, output MB/s",
                    target: "≥ 1.0× (streaming, bounded memory)"))
            }
            figures += try await html(store)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
        try? FileManager.default.removeItem(at: storeURL)
        try? FileManager.default.removeItem(atPath: naivePath)
        return figures
    }

    /// `export.html_s` beside the text export of the same messages; printed as not available
    /// while the HTML format is not built.
    private func html(_ store: LogStore) async throws -> [Figure] {
        let count = min(rows, Self.htmlRows)
        // Row i was logged at 1790000000 + i ms: stop half a millisecond before row `count`.
        let options = ExportOptions(until: Date(timeIntervalSince1970: 1_790_000_000 + (Double(count) - 0.5) * 0.001))
        let text = try await export(store, .text, options: options)
        let html: (seconds: Double, cpuSeconds: Double, bytes: Int64)
        do {
            html = try await export(store, .html, options: options)
        } catch let error as LogStoreError where error.kind == .invalidArgument {
            print("export: export.html_s not available (\(error.reason ?? error.description)); the text export of the same \(count) messages "
                + String(format: "took %.3f s (%.3f s of CPU)", text.seconds, text.cpuSeconds))
            return []
        }
        return [Figure(
            name: "export.html_s", value: html.seconds, baseline: text.seconds, unit: "s",
            baselineDescription: "ours: `.text` export of the same \(count) messages (\(String(format: "%.1f", Double(text.bytes) / 1e6)) MB); "
                + "HTML \(String(format: "%.1f", Double(html.bytes) / 1e6)) MB",
            target: "no target; time ratio")]
    }

    /// Exports to a new file (removed afterwards) and times it.
    private func export(
        _ store: LogStore, _ format: ExportFormat, options: ExportOptions = ExportOptions()
    ) async throws -> (seconds: Double, cpuSeconds: Double, bytes: Int64) {
        let url = directory.appendingPathComponent("export-\(UUID().uuidString).\(format.fileExtension)")
        defer { try? FileManager.default.removeItem(at: url) }
        let start = Measure.now()
        let startCPU = Measure.processCPUSeconds()
        let report = try await store.export(to: url, format: format, options: options)
        let seconds = Measure.seconds(since: start)
        let cpuSeconds = Measure.processCPUSeconds() - startCPU
        guard report.messageCount == (options.until == nil ? rows : min(rows, Self.htmlRows)) else {
            throw BenchError.failed("\(format) export wrote \(report.messageCount) messages")
        }
        return (seconds, cpuSeconds, report.byteCount)
    }
}
