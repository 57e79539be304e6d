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
