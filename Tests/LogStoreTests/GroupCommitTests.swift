import Foundation
import Glibc
import LogStore
import Synchronization
import Testing

/// Group commit (`Configuration.isGroupCommitEnabled`, on by default): an idle writer commits
/// the first event logged at once, not a save interval later; under load the events logged
/// during a commit make the next transaction, so transactions grow by themselves; another
/// process sees what was logged long before the save interval. The save intervals here are long
/// (an hour, five seconds) so the assertions are about when the writer commits, not about speed.
@Suite("Group commit")
struct GroupCommitTests {
    static func committedMessages(_ store: LogStore) async throws -> Int64 {
        try await store.read { try $0.rows("SELECT count(*) FROM messages").first?[0].integer ?? 0 }
    }

    @Test func anIdleWriterCommitsWithoutWaitingForTheSaveInterval() async throws {
        // The store's clock never moves: the save interval cannot end.
        let clock = ManualClock()
        var configuration = LogStore.Configuration()
        configuration.timeSource = clock.timeSource
        configuration.saveInterval = .seconds(3_600)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            // The writer waits with nothing to do before the message arrives.
            try await clock.waitForWaits()
            store.storeMessage(label: "app", level: .info, message: "one")
            try await waitFor(seconds: 30) { try await Self.committedMessages(store) == 1 }
            // And again after a quiet second (two commits are a few milliseconds apart at
            // least), far within the save interval.
            clock.advance(by: .seconds(1))
            try await clock.waitForWaits()
            store.storeMessage(label: "app", level: .info, message: "two")
            try await waitFor(seconds: 30) { try await Self.committedMessages(store) == 2 }
            #expect(clock.elapsed == .seconds(1))
        }
    }

    @Test func withGroupCommitOffTheWriterWaitsForTheSaveInterval() async throws {
        let clock = ManualClock()
        var configuration = LogStore.Configuration()
        configuration.timeSource = clock.timeSource
        configuration.saveInterval = .seconds(3_600)
        configuration.isGroupCommitEnabled = false
        try await withTemporaryStore(configuration: configuration) { store, _ in
            try await clock.waitForWaits()
            store.storeMessage(label: "app", level: .info, message: "one")
            // Given the time a prompt commit takes many times over.
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await Self.committedMessages(store) == 0)
            clock.advance(by: .seconds(3_600))
            try await waitFor(seconds: 30) { try await Self.committedMessages(store) == 1 }
        }
    }

    /// Logged faster than the writer commits, events wait while it commits and go into the next
    /// transaction together: far fewer transactions than events (each transaction of messages
    /// is one row of the change history).
    @Test func underLoadTransactionsGrowByThemselves() async throws {
        let count = 50_000
        var configuration = historyConfiguration("app")
        configuration.saveInterval = .seconds(3_600)
        // Every message is kept: the buffer's bound makes the loop wait, not drop.
        configuration.overflowPolicy = .waitForSpace
        try await withTemporaryStore(configuration: configuration) { store, _ in
            for index in 0..<count {
                store.storeMessage(label: "load", level: .info, message: "message \(index) with some text")
            }
            try await store.flush()
            let (transactions, messages) = try await store.read { db in
                let row = try db.rows(
                    "SELECT count(*), coalesce(sum(row_count), 0) FROM history WHERE entity = ? AND operation = ?",
                    [.integer(Int64(HistoryEntity.message.rawValue)), .integer(Int64(HistoryOperation.insert.rawValue))]
                ).first
                return (row?[0].integer ?? 0, row?[1].integer ?? 0)
            }
            #expect(messages == Int64(count))
            // Thousands of events a transaction on an idle machine; a tenth of that allowed.
            #expect(transactions <= Int64(count / 100), "\(transactions) transactions for \(count) messages")
        }
    }

    /// A child process logs with a two-minute save interval into the store this process tails
    /// read-only, and keeps the store open afterwards: every message reaches the tail while the
    /// child would still be waiting out its interval (batching once per interval, nothing would
    /// come before the child closed the store).
    @Test func anotherProcessesMessagesReachATailLongBeforeTheSaveInterval() async throws {
        let helper = ExitDrainTests.helper
        try #require(FileManager.default.isExecutableFile(atPath: helper.path), "missing \(helper.path)")
        let count = 10
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { _ in }
            try await withStore(at: url, options: [.readonly]) { store in
                let tail = try await store.tail()
                // 10 messages over two seconds, then the store stays open for two minutes.
                let child = try ChildProcess(helper, ["paced", url.path, String(count), "5", "120000", "120000"])
                defer { child.stop() }
                let started = ContinuousClock.now
                // Bounded well inside the child's interval and hold: a saturated parallel run
                // has held a tail back for seconds, never for a minute.
                let received = try await withinTimeLimit(seconds: 60) {
                    var received = 0
                    for try await _ in tail {
                        received += 1
                        if received == count { break }
                    }
                    return received
                }
                #expect(received == count)
                #expect(ContinuousClock.now - started < .seconds(60))
                #expect(child.isRunning, "the child still holds its store open: nothing came from its close")
            }
        }
    }
}
