import Foundation
import Synchronization
import Testing

@testable import LogStore

/// A store configuration with history on, as `author`.
func historyConfiguration(
    _ author: String, allAuthors: Set<String> = [], batchAuthors: Set<String> = [],
    cleanStrategy: HistoryConfiguration.CleanStrategy = .none, includesOwnChanges: Bool = false
) -> LogStore.Configuration {
    var configuration = LogStore.Configuration()
    configuration.history = HistoryConfiguration(
        currentAuthor: author, allAuthors: allAuthors, batchAuthors: batchAuthors, cleanStrategy: cleanStrategy,
        includesOwnChanges: includesOwnChanges)
    return configuration
}

/// Opens the store at `url` once per configuration, in order (each as its own author, as
/// separate processes would), runs `body` with them, and closes them all.
func withAuthorStores<T>(
    _ url: URL, _ configurations: [LogStore.Configuration], _ body: ([LogStore]) async throws -> T
) async throws -> T {
    var stores: [LogStore] = []
    do {
        for configuration in configurations {
            stores.append(try await LogStore(storeURL: url, options: [.create], configuration: configuration))
        }
        let result = try await body(stores)
        for store in stores { try await store.close() }
        return result
    } catch {
        for store in stores { try? await store.close() }
        throw error
    }
}

/// `author`'s cursor as stored.
func historyCursor(_ author: String, in store: LogStore) async throws -> Int64? {
    try await store.read { db in
        try db.rows("SELECT cursor FROM history_authors WHERE name = ?", [.text(author)]).first?[0].integer
    }
}

/// The last seq history gave out.
func lastHistorySequence(_ store: LogStore) async throws -> Int64 {
    try await store.read { db in
        try db.rows("SELECT seq FROM sqlite_sequence WHERE name = 'history'").first?[0].integer ?? 0
    }
}

/// How many history rows there are.
func historyRowCount(_ store: LogStore) async throws -> Int64 {
    try await store.read { db in try db.rows("SELECT count(*) FROM history").first?[0].integer ?? 0 }
}

/// Polls `condition` every 10 ms until it holds, within `seconds`.
func waitFor(seconds: Double = 30, _ condition: @escaping @Sendable () async throws -> Bool) async throws {
    try await withinTimeLimit(seconds: seconds) {
        while try await !condition() { try await Task.sleep(for: .milliseconds(10)) }
    }
}

/// What observers and hooks were called with, in call order, for a test to wait on and read.
final class CallLog<Entry: Sendable>: Sendable {
    private let entries = Mutex<[Entry]>([])

    func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }
    var all: [Entry] { entries.withLock { $0 } }
    var count: Int { entries.withLock { $0.count } }

    /// Waits until at least `count` entries arrived, within `seconds`; returns them all.
    @discardableResult
    func wait(for count: Int, seconds: Double = 30) async throws -> [Entry] {
        try await waitFor(seconds: seconds) { self.count >= count }
        return all
    }
}
