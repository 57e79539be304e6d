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

    /// Closes the store and deletes it: the next phase should not pay for its writeback.
    static func closeAndDelete(_ store: LogStore, at url: URL) async throws {
        try await store.close()
        try? FileManager.default.removeItem(at: url)
    }
}
