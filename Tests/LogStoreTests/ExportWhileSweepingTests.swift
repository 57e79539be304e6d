import Foundation
import LogStore
import Synchronization
import Testing

/// Bodies removed (by a sweep, in another process) while an export runs: the export still
/// completes, saying those bodies are no longer stored, as it would after that sweep.
@Suite("Export while bodies go")
struct ExportWhileSweepingTests {
    static let url = URL(string: "https://files.example.com/download")!

    @Test(arguments: [ExportFormat.har, .html, .archive])
    func bodiesRemovedMidExportAreReportedAsGone(_ format: ExportFormat) async throws {
        try await withTemporaryStore { store, storeURL in
            for seed in 1...3 {
                var random = SeededRandom(seed: UInt64(seed))
                let body = Data((0..<40_000).map { _ in UInt8.random(in: 0...255, using: &random) })
                store.storeRequest(NetworkRequest(url: Self.url), response: NetworkResponse(url: Self.url, statusCode: 200),
                                   error: nil, data: body)
            }
            try await store.flush()
            let blobs = storeURL.appendingPathComponent("blobs")
            #expect(try FileManager.default.contentsOfDirectory(atPath: blobs.path).count == 3)
            let removed = Atomic<Bool>(false)
            let target = storeURL.deletingLastPathComponent().appendingPathComponent("out.\(format.fileExtension)")
            let report = try await store.export(to: target, format: format) { _ in
                // At the first report, after the snapshot: every body file goes.
                guard !removed.exchange(true, ordering: .relaxed) else { return }
                for name in (try? FileManager.default.contentsOfDirectory(atPath: blobs.path)) ?? [] {
                    unlink(blobs.appendingPathComponent(name).path)
                }
            }
            #expect(report.taskCount == 3)
            #expect(FileManager.default.fileExists(atPath: target.path))
            if format == .archive {
                let archive = try await LogStore(archiveURL: target)
                for task in try await archive.tasks(TaskQuery()).tasks {
                    let details = try #require(try await archive.task(id: task.id))
                    if let key = details.responseBodyKey {
                        #expect(try await archive.blobData(forKey: key)?.count == 40_000)
                    } else {
                        #expect(details.isResponseBodyRemoved)
                    }
                }
                try await archive.close()
            }
        }
    }
}
