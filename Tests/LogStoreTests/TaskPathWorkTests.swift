import Foundation
import LogStore
import Synchronization
import Testing

/// What the task path decides once about a body, seen through the public API: incompressible
/// bodies (by type, encoding or content) are stored as they are, byte for byte; compressible ones
/// compressed; the request body redacted in every copy the store keeps or hands out.
@Suite("Task path work done once")
struct TaskPathWorkTests {
    static let url = URL(string: "https://cdn.example.com/assets/item")!

    /// Bytes with no structure (SplitMix64), which zlib cannot shrink.
    static func randomBytes(_ count: Int, seed: UInt64) -> Data {
        var generator = SeededRandom(seed: seed)
        var bytes = [UInt8](repeating: 0, count: count)
        for index in stride(from: 0, to: count, by: 8) {
            let word = generator.next()
            for offset in 0..<min(8, count - index) { bytes[index + offset] = UInt8(truncatingIfNeeded: word >> (8 * offset)) }
        }
        return Data(bytes)
    }

    /// 4 KiB of repetitive JSON, which zlib shrinks several times.
    static func compressibleJSON(seed: Int) -> Data {
        let item = #"{"sku":"SKU-\#(seed)","name":"Wireless mouse","quantity":1,"currency":"EUR"}"#
        return Data(("[" + Array(repeating: item, count: 52).joined(separator: ",") + "]").utf8)
    }

    /// Stores one task per body (as its response, with the given headers) and returns each
    /// body's blob summary, by body.
    private func storeBodies(
        _ bodies: [(data: Data, headers: [String: String])], in store: LogStore
    ) async throws -> [BlobSummary] {
        for body in bodies {
            store.storeRequest(
                NetworkRequest(url: Self.url, method: "GET"),
                response: NetworkResponse(url: Self.url, statusCode: 200, headers: body.headers),
                error: nil, data: body.data)
        }
        try await store.flush()
        let summaries = try await store.blobs()
        return try bodies.map { body in
            let key = LogStore.blobKey(for: body.data)
            return try #require(summaries.first { $0.key == key }, "no blob for a stored body")
        }
    }

    @Test func incompressibleBodiesAreStoredAsTheyAreWithTheirExactBytes() async throws {
        try await withTemporaryStore { store, _ in
            let bodies: [(data: Data, headers: [String: String])] = [
                (Self.randomBytes(16 << 10, seed: 1), ["Content-Type": "image/png"]),  // by type
                (Self.randomBytes(3_000, seed: 2), ["Content-Type": "application/octet-stream"]),  // by probe
                (Self.randomBytes(40_000, seed: 3), [:]),  // by probe, and a file
            ]
            let summaries = try await storeBodies(bodies, in: store)
            for (body, summary) in zip(bodies, summaries) {
                #expect(!summary.isCompressed)
                #expect(summary.size == Int64(body.data.count))
                #expect(summary.decompressedSize == Int64(body.data.count))
                #expect(try await store.blobData(forKey: summary.key) == body.data)
            }
        }
    }

    @Test func contentAlreadyCompressedIsNotCompressedAgainWhateverItsBytes() async throws {
        // Compressible bytes, but declared compressed: the type and encoding decide, not zlib.
        try await withTemporaryStore { store, _ in
            let bodies: [(data: Data, headers: [String: String])] = [
                (Self.compressibleJSON(seed: 1), ["Content-Type": "application/json", "content-encoding": "GZIP"]),
                (Self.compressibleJSON(seed: 2), ["Content-Type": "image/jpeg"]),
                (Self.compressibleJSON(seed: 3), ["Content-Type": "video/mp4"]),
                (Data([0x1F, 0x8B]) + Self.compressibleJSON(seed: 4), [:]),  // a gzip signature, no type
                (Self.compressibleJSON(seed: 5), ["Content-Type": "application/json", "Content-Encoding": "identity"]),
            ]
            let summaries = try await storeBodies(bodies, in: store)
            #expect(summaries.map(\.isCompressed) == [false, false, false, false, true])
            for (body, summary) in zip(bodies, summaries) {
                #expect(try await store.blobData(forKey: summary.key) == body.data)
            }
        }
    }

    @Test func compressibleBodiesAreCompressedAndRepeatsLinked() async throws {
        try await withTemporaryStore { store, _ in
            let body = Self.compressibleJSON(seed: 7)
            let headers = ["Content-Type": "application/json"]
            // The same body three times in one batch, and the same again in a later batch.
            let summaries = try await storeBodies([(body, headers), (body, headers), (body, headers)], in: store)
            let later = try await storeBodies([(body, headers)], in: store)
            #expect(summaries[0].isCompressed)
            #expect(summaries[0].size * 3 < summaries[0].decompressedSize)
            #expect(later[0].linkCount == 4)
            #expect(try await store.blobData(forKey: summaries[0].key) == body)
        }
    }

    @Test func theRequestBodyIsRedactedInTheStoreAndInTheEventTheHookSees() async throws {
        let seen = Mutex<[Data?]>([])
        var configuration = LogStore.Configuration()
        configuration.willHandleEvent = { event in
            if case .networkTaskCompleted(let completed) = event {
                seen.withLock { $0 += [completed.request.body, completed.requestBody] }
            }
            return event
        }
        try await withTemporaryStore(configuration: configuration) { store, _ in
            let body = Data(#"{"user":"ada","password":"s3cr3t-42","items":[1,2]}"#.utf8)
            store.storeRequest(
                NetworkRequest(url: Self.url, method: "POST", headers: ["Content-Type": "application/json"], body: body),
                response: NetworkResponse(url: Self.url, statusCode: 201), error: nil, data: nil)
            try await store.flush()
            let expected = Data(#"{"user":"ada","password":"<private>","items":[1,2]}"#.utf8)
            #expect(seen.withLock { $0 } == [expected, expected])
            let task = try #require(try await store.tasks(TaskQuery()).tasks.first)
            let details = try #require(try await store.task(id: task.id))
            let key = try #require(details.requestBodyKey)
            #expect(try await store.blobData(forKey: key) == expected)
        }
    }

    @Test func bodiesOverTheLimitAreFlaggedOnceAndNotStored() async throws {
        var configuration = LogStore.Configuration()
        configuration.bodySizeLimit = 1_000
        try await withTemporaryStore(configuration: configuration) { store, _ in
            store.storeRequest(
                NetworkRequest(url: Self.url, method: "POST", body: Self.randomBytes(1_001, seed: 5)),
                response: NetworkResponse(url: Self.url, statusCode: 200), error: nil,
                data: Self.randomBytes(1_000, seed: 6))
            try await store.flush()
            let task = try #require(try await store.tasks(TaskQuery()).tasks.first)
            let details = try #require(try await store.task(id: task.id))
            #expect(task.requestBodySize == 1_001 && task.responseBodySize == 1_000)
            #expect(details.isRequestBodyOverLimit && details.requestBodyKey == nil)
            #expect(!details.isResponseBodyOverLimit && details.responseBodyKey != nil)
            #expect(try await store.blobs().count == 1)
        }
    }
}
