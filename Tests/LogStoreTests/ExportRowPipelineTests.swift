import Foundation
@testable import LogStore
import Synchronization
import Testing

/// The streaming exports read rows on a thread of their own while the export's thread formats
/// them (`ExportRowPipeline.swift`): stopped at any moment, from inside or outside, the two
/// threads end together, promptly, and leave no file; left alone, every row arrives once, in order.
@Suite struct ExportRowPipelineTests {
    static let rows = 20_000

    @Test(arguments: [ExportFormat.text, .ndjson])
    func cancelledAtAnyMomentEndsPromptlyAndLeavesNoFile(_ format: ExportFormat) async throws {
        try await withTemporaryStore(configuration: Self.configuration) { store, url in
            try await Self.fill(store, withMetadata: true)
            let exports = url.deletingLastPathComponent().appendingPathComponent("exports", isDirectory: true)
            try FileManager.default.createDirectory(at: exports, withIntermediateDirectories: true)
            var cancelled = 0
            // From before the first row to after the last: some cancel while the reader waits
            // for a chunk to come back, some while the writer waits for the next.
            for (round, delay) in [0, 1, 2, 5, 10, 20, 40, 80].enumerated() {
                let file = exports.appendingPathComponent("out-\(round).\(format.fileExtension)")
                let task = Task { try await store.export(to: file, format: format) }
                try await Task.sleep(for: .milliseconds(delay))
                task.cancel()
                let result = try await withinTimeLimit(seconds: 30) { await task.result }
                switch result {
                case .success(let report):
                    #expect(report.messageCount == Self.rows)
                    try FileManager.default.removeItem(at: file)
                case .failure(let error):
                    #expect(error is CancellationError, "\(error)")
                    cancelled += 1
                }
                #expect(try directoryListing(exports).isEmpty)
            }
            #expect(cancelled > 0)
            // The store reads as before: the reader thread left the connection to the pool.
            let report = try await store.export(to: exports.appendingPathComponent("whole.\(format.fileExtension)"), format: format)
            #expect(report.messageCount == Self.rows)
        }
    }

    @Test func everyRowArrivesOnceInOrderAcrossChunksAndPages() async throws {
        try await withTemporaryStore(configuration: Self.configuration) { store, url in
            try await Self.fill(store, withMetadata: false)
            let file = url.deletingLastPathComponent().appendingPathComponent("all.log")
            let report = try await store.export(to: file, format: .text)
            #expect(report.messageCount == Self.rows)
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(lines.count == Self.rows)
            var expected = 0
            for line in lines {
                guard line.hasSuffix("row \(expected)") || line.contains("row \(expected)  ") else {
                    Issue.record("line \(expected) is \(line)")
                    return
                }
                expected += 1
            }
        }
    }

    /// Logging waits for room rather than drop: the burst is larger than the pending bound.
    static var configuration: LogStore.Configuration {
        var configuration = LogStore.Configuration()
        configuration.overflowPolicy = .waitForSpace
        return configuration
    }

    /// ``rows`` messages, `row 0` first, through `log`, which suspends while the buffer is full.
    private static func fill(_ store: LogStore, withMetadata: Bool) async throws {
        for index in 0..<rows {
            await store.log(
                createdAt: ExportFixture.at(Double(index)), label: "bulk", level: .info,
                message: "row \(index)", metadata: withMetadata ? ["n": "\(index)"] : nil)
        }
        try await store.flush()
        #expect(try await store.info().droppedEventCount == 0)
    }
}
