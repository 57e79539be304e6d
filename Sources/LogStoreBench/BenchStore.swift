import Foundation
import LogStore

/// The stores the benchmarks write to: new (or reopened), and waiting for space rather than
/// dropping.
enum BenchStore {
    static func open(
        at url: URL, options: LogStore.Options = [.create], configuration: LogStore.Configuration = .init()
    ) async throws -> LogStore {
        var configuration = configuration
        configuration.overflowPolicy = .waitForSpace
        return try await LogStore(storeURL: url, options: options, configuration: configuration)
    }

    /// Polls `info()` every 5 ms until every message is in the search index, and returns the
    /// last answer; throws after `bound` (the writer indexes about 200k messages a second).
    static func waitUntilIndexed(_ store: LogStore, bound: Duration = .seconds(300)) async throws -> LogStore.Info {
        let start = ContinuousClock.now
        var info = try await store.info()
        while info.unindexedMessageCount > 0 {
            guard ContinuousClock.now - start < bound else {
                throw BenchError.failed("\(info.unindexedMessageCount) messages still unindexed after \(bound)")
            }
            try await Task.sleep(for: .milliseconds(5))
            info = try await store.info()
        }
        return info
    }

    /// Closes the store and deletes it: the next phase should not pay for its writeback.
    static func closeAndDelete(_ store: LogStore, at url: URL) async throws {
        try await store.close()
        try? FileManager.default.removeItem(at: url)
    }
}
