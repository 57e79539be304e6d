import Foundation
import LogStore
import Testing

/// What a crash can leave in `blobs/` (a body file whose row never committed, a half-written
/// temporary file) is removed by the next open; rows always keep their files.
@Suite("Blob crash safety")
struct BlobCrashSafetyTests {
    static let url = URL(string: "https://api.example.com/export")!

    /// A body that stays a file: random bytes do not compress below the 16 KiB inline limit.
    static func largeBody(seed: UInt64) -> Data {
        var random = SeededRandom(seed: seed)
        return Data((0..<60_000).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }

    @Test func theNextOpenRemovesOrphanAndTemporaryFiles() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                store.storeRequest(NetworkRequest(url: Self.url), response: nil, error: nil, data: Self.largeBody(seed: 1))
                try await store.flush()
            }
            let blobs = url.appendingPathComponent("blobs")
            let kept = try FileManager.default.contentsOfDirectory(atPath: blobs.path)
            #expect(kept.count == 1)
            // What a crash leaves: a file renamed into place whose row never committed, and a
            // temporary file cut short.
            let orphan = LogStore.blobKey(for: Data("never committed".utf8))
            try Data("never committed".utf8).write(to: blobs.appendingPathComponent(orphan))
            try Data("half".utf8).write(to: blobs.appendingPathComponent(".tmp-\(orphan)-1234"))

            try await withStore(at: url) { store in
                #expect(try FileManager.default.contentsOfDirectory(atPath: blobs.path) == kept)
                let key = try #require(kept.first)
                #expect(try await store.blobData(forKey: key) == Self.largeBody(seed: 1))
            }
        }
    }

    @Test func filesAnotherOpenStoreMayNeedAreKept() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { _ in
                let blobs = url.appendingPathComponent("blobs")
                try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
                // Fresh: it may be a file another process wrote and is about to commit.
                let fresh = LogStore.blobKey(for: Data("in flight".utf8))
                try Data("in flight".utf8).write(to: blobs.appendingPathComponent(fresh))
                try await withStore(at: url) { _ in
                    #expect(FileManager.default.fileExists(atPath: blobs.appendingPathComponent(fresh).path))
                }
            }
        }
    }
}

/// A process killed while it stores large bodies leaves a store that opens, whose every blob
/// row has its file and decompresses to its key, and whose leftovers the next open removes.
@Suite("Killed while storing bodies")
struct KilledWriterTests {
    /// The `logstore` tool, built beside the test bundle by `swift test`.
    static var tool: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("logstore")
    }

    @Test func aKilledWriterLeavesAConsistentStore() async throws {
        let tool = Self.tool
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "missing \(tool.path)")
        try await withTemporaryStoreURL { url in
            // Far more than it can write before the kill: it is busy storing bodies when it dies.
            let child = try ChildProcess(tool, ["demo", url.path, "--count", "2000000", "--tasks", "200000"])
            defer { child.stop() }
            let blobs = url.appendingPathComponent("blobs")
            // Wait until bodies are being written as files and a few batches have committed
            // (the writer commits every 300 ms), then kill without warning, mid-run.
            let deadline = Date().addingTimeInterval(TimeScale.scaled(120))
            while Date() < deadline {
                let files = (try? FileManager.default.contentsOfDirectory(atPath: blobs.path)) ?? []
                if files.count >= 3 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            // and until a reader sees some of the tasks committed: killed mid-run, with bodies
            // both committed and in flight.
            try await waitFor(seconds: 120) {
                // A reader may fail for a moment while the child writes (a schema being
                // created): that is a "not yet", not a failure of this test.
                guard let reader = try? await LogStore(storeURL: url, options: [.readonly]) else { return false }
                let tasks = try? await reader.info().taskCount
                try await reader.close()
                return (tasks ?? 0) >= 50
            }
            #expect(child.isRunning, "the child finished before it could be killed")
            child.stop()
            let ended = try #require(
                try await onOwnThread { child.waitForTermination(seconds: SpawnedProcess.killGraceSeconds) },
                "the child outlived SIGKILL")
            #expect(ended.signal != nil, "\(ended)")

            try await withStore(at: url) { store in
                let rows = try await store.read { db in
                    try db.rows("SELECT lower(hex(key)), data IS NULL FROM blobs").map {
                        ($0[0].text ?? "", $0[1].integer == 1)
                    }
                }
                #expect(!rows.isEmpty)
                for (key, isFile) in rows {
                    if isFile {
                        #expect(FileManager.default.fileExists(atPath: blobs.appendingPathComponent(key).path))
                    }
                    // Decompresses, has its recorded size, and hashes to its key (checked inside).
                    _ = try #require(try await store.blobData(forKey: key))
                }
                // No file without a row, and no temporary file, survives this open.
                let fileKeys = Set(rows.filter(\.1).map(\.0))
                let files = Set(try FileManager.default.contentsOfDirectory(atPath: blobs.path))
                #expect(files == fileKeys)
                let check = try await store.read { db in try db.scalar("PRAGMA integrity_check")?.text }
                #expect(check == "ok")
            }
        }
    }
}
