import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore blobs`: the stored bodies and their links.
@Suite struct BlobsCLITests: CLITestCase {
    @Test func blobsJSONParsesAndLinkCountsAddUp() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url)
            let run = await logstore("blobs", url.path, "--json", "--limit", "100000")
            #expect(run.status == 0, "\(run.error)")
            let blobs = try run.lines.map(jsonObject)
            let info = try jsonObject(await logstore("info", url.path, "--json").output)
            #expect(blobs.count == info["blobCount"] as? Int)
            #expect(blobs.reduce(0) { $0 + ($1["size"] as? Int ?? 0) } == info["blobsSize"] as? Int)

            // Each blob's links are the task bodies stored under its key.
            let store = try await LogStore(storeURL: url, options: [.readonly])
            var references: [String: Int] = [:]
            for task in try await store.tasks(TaskQuery(limit: 1000)).tasks {
                let details = try #require(try await store.task(id: task.id))
                for key in [details.requestBodyKey, details.responseBodyKey].compactMap({ $0 }) { references[key, default: 0] += 1 }
            }
            try await store.close()
            var links: [String: Int] = [:]
            for blob in blobs {
                let key = try #require(blob["key"] as? String)
                #expect(key.count == 40 && key.allSatisfy { $0.isHexDigit && !$0.isUppercase })
                links[key] = blob["linkCount"] as? Int
                let storage = blob["storage"] as? String
                #expect(storage == ((blob["size"] as? Int ?? 0) > 16 * 1024 ? "file" : "inline"))
            }
            #expect(links == references)
            #expect(links.values.contains { $0 > 1 }, "the demo's repeated bodies are deduplicated")
            #expect(blobs.contains { $0["storage"] as? String == "file" })

            let human = await logstore("blobs", url.path, "--limit", "3")
            #expect(human.lines.first?.hasPrefix("KEY ") == true)
            #expect(human.lines.count == 5)
            #expect(human.lines[1].hasSuffix("  file"))
            #expect(human.lines[1].contains("×"))
            #expect(human.lines.last?.hasPrefix("Showing 3 of ") == true)
            #expect(human.error.isEmpty)
        }
    }
}
