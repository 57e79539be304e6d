import Foundation
import LogStore
import Testing

/// `removeAll` and `removeSessions` on a large store: bounded steps, like the sweep's, so the
/// WAL stays small and logging goes on during the removal.
@Suite("Removal")
struct RemovalTests {
    static let messageCount = 100_000
    static let taskCount = 40

    /// A store of many small messages and some tasks with bodies, in two sessions (an earlier
    /// one and the current one); the WAL emptied, so what the removal writes is what it shows.
    static func fill(_ url: URL, configuration: LogStore.Configuration) async throws -> UUID {
        let past = try await withStore(at: url, configuration: configuration) { store in
            try await log(store, from: 0, to: messageCount / 2)
            return store.session.id
        }
        return past
    }

    static func log(_ store: LogStore, from first: Int, to end: Int) async throws {
        for i in first..<end {
            store.storeMessage(label: "bulk", level: .info, message: "m\(i)")
            if i.isMultiple(of: messageCount / taskCount) {
                let body = Data(repeating: UInt8(truncatingIfNeeded: i), count: 20_000) + Data("\(i)".utf8)
                store.storeRequest(
                    NetworkRequest(url: URL(string: "https://example.com/\(i)")), response: NetworkResponse(statusCode: 200),
                    error: nil, data: body)
            }
        }
        try await store.flush()
    }

    static func configuration() -> LogStore.Configuration {
        var configuration = LogStore.Configuration()
        // Nothing dropped without blocking the test's thread: the buffer holds a whole fill.
        configuration.maxPendingEvents = messageCount
        // A transaction (and a removal step) writes at most 1 MiB of WAL.
        configuration.sizeLimit = 16_000_000
        return configuration
    }

    /// Samples the WAL's size and times `flush()` of one message at a time while `removal`
    /// runs: the largest of each.
    static func whileRemoving(
        _ store: LogStore, at url: URL, _ removal: @escaping @Sendable () async throws -> Void
    ) async throws -> (wal: Int64, stall: Duration) {
        let wal = FileSizeWatch(url.appendingPathComponent("logs.sqlite-wal"))
        let done = Recorder(false)
        var stall: Duration = .zero
        try await wal.whileWatching {
            let logger = Task {
                var longest: Duration = .zero
                var i = 0
                while !done.current {
                    let start = ContinuousClock.now
                    store.storeMessage(label: "during", level: .info, message: "during \(i)")
                    try await store.flush()
                    longest = max(longest, ContinuousClock.now - start)
                    i += 1
                    try await Task.sleep(for: .milliseconds(5))
                }
                return longest
            }
            let removed = Task {
                defer { done.update { $0 = true } }
                try await removal()
            }
            try await removed.value
            stall = try await logger.value
        }
        return (wal.largest, stall)
    }

    @Test func removeAllKeepsTheWALSmallAndLoggingGoing() async throws {
        let configuration = Self.configuration()
        try await withTemporaryStoreURL { url in
            _ = try await Self.fill(url, configuration: configuration)
            try await withStore(at: url, configuration: configuration) { store in
                try await Self.log(store, from: Self.messageCount / 2, to: Self.messageCount)
                let database = FileSizeWatch.size(of: url.appendingPathComponent("logs.sqlite"))
                #expect(try await store.info().messageCount == Self.messageCount)

                let (wal, stall) = try await Self.whileRemoving(store, at: url) { try await store.removeAll() }
                // One transaction over the store writes about every page of it to the WAL; steps
                // write about a transaction's limit (1 MiB) each, and a step in which the
                // full-text index merges its segments (FTS5 does, as tombstones pile up) up to
                // about three times that.
                #expect(wal < min(database / 2, 4 << 20), "WAL peaked at \(wal) bytes, database \(database)")
                // Loose on purpose (the benchmark measures stalls): a removal in steps keeps each
                // flush well under a second alone; on two cores the whole suite shares, 1-1.5 s.
                #expect(stall < .seconds(TimeScale.scaled(6)), "a flush waited \(stall)")

                #expect(try await store.count(MessageQuery(labels: ["bulk"])) == 0)
                let info = try await store.info()
                #expect(info.taskCount == 0)
                #expect(info.sessionCount == 1)
                #expect(info.blobsSize == 0)
                try await expectConsistent(store, at: url)
            }
        }
    }

    @Test func removeSessionsIsBoundedTooAndKeepsTheOthers() async throws {
        let configuration = Self.configuration()
        try await withTemporaryStoreURL { url in
            let past = try await Self.fill(url, configuration: configuration)
            try await withStore(at: url, configuration: configuration) { store in
                store.storeMessage(label: "current", level: .info, message: "kept")
                try await store.flush()
                let database = FileSizeWatch.size(of: url.appendingPathComponent("logs.sqlite"))

                let (wal, _) = try await Self.whileRemoving(store, at: url) { try await store.removeSessions([past]) }
                #expect(wal < min(database / 2, 2 << 20), "WAL peaked at \(wal) bytes, database \(database)")

                #expect(try await store.sessions().map(\.id) == [store.session.id])
                #expect(try await store.count(MessageQuery(labels: ["bulk"])) == 0)
                #expect(try await store.count(MessageQuery(labels: ["current"])) == 1)
                #expect(try await store.info().taskCount == 0)
                try await expectConsistent(store, at: url)
            }
        }
    }
}
