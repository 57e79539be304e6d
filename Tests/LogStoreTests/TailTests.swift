import Dispatch
import Foundation
import Glibc
import LogStore
import Synchronization
import Testing

/// The live tail (`LogStore.tail(_:from:onGap:)`): new messages from this process and from
/// another one, filters, a slow consumer, gaps from the sweep and removals, the start
/// positions, and how it ends. Every wait is bounded.
@Suite("Live tail")
struct TailTests {
    /// What a consumer saw, in order: messages by text and gaps.
    enum Seen: Equatable, Sendable {
        case message(String)
        case gap(ClosedRange<Int64>)
    }

    /// Runs one iteration of `tail` for up to `count` messages within `seconds`, recording the
    /// gaps `gaps` receives in between (the tail calls `onGap` on the consuming task, before the
    /// next message, so the order is exact).
    func consume(
        _ tail: MessageTail, count: Int, gaps: GapRecorder? = nil, seconds: Double = 30,
        pause: (@Sendable (Int) async throws -> Void)? = nil
    ) async throws -> (seen: [Seen], messages: [LogStore.Message]) {
        try await withinTimeLimit(seconds: seconds) {
            var seen: [Seen] = []
            var messages: [LogStore.Message] = []
            guard count > 0 else { return (seen, messages) }
            for try await message in tail {
                seen += gaps?.take().map(Seen.gap) ?? []
                seen.append(.message(message.text))
                messages.append(message)
                if messages.count >= count { break }
                try await pause?(messages.count)
            }
            return (seen, messages)
        }
    }

    final class GapRecorder: Sendable {
        private let gaps = Mutex<[ClosedRange<Int64>]>([])
        func record(_ gap: TailGap) { gaps.withLock { $0.append(gap.skippedIDs) } }
        func take() -> [ClosedRange<Int64>] {
            gaps.withLock { gaps in
                defer { gaps = [] }
                return gaps
            }
        }
    }

    func log(_ store: LogStore, _ texts: [String], level: LogStore.Level = .info, label: String = "app", createdAt: Date = Date()) {
        for text in texts { store.storeMessage(createdAt: createdAt, label: label, level: level, message: text) }
    }

    @Test func followsWhatThisProcessLogs() async throws {
        try await withTemporaryStore { store, _ in
            log(store, ["before"])
            try await store.flush()
            let tail = try await store.tail()
            // Not flushed: the writer's own commit wakes the tail.
            log(store, (0..<5).map { "new \($0)" })
            let (seen, messages) = try await consume(tail, count: 5)
            #expect(seen == (0..<5).map { .message("new \($0)") })
            #expect(messages.map(\.id) == messages.map(\.id).sorted())
        }
    }

    @Test func appliesTheQueryFilters() async throws {
        try await withTemporaryStore { store, _ in
            let tail = try await store.tail(MessageQuery(levels: .error ... .critical, labels: ["db"]))
            for index in 0..<40 {
                store.storeMessage(
                    label: index % 2 == 0 ? "db" : "http", level: index % 4 == 0 ? .error : .info, message: "m\(index)")
            }
            let (seen, _) = try await consume(tail, count: 10)
            #expect(seen == stride(from: 0, to: 40, by: 4).map { .message("m\($0)") })
        }
    }

    /// A child process logs at a steady rate into the store this process has open read-only:
    /// every message arrives, once, in order.
    @Test func followsAnotherProcessAsItWrites() async throws {
        let helper = ExitDrainTests.helper
        try #require(FileManager.default.isExecutableFile(atPath: helper.path), "missing \(helper.path)")
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { _ in }
            try await withStore(at: url, options: [.readonly]) { store in
                let tail = try await store.tail()
                let child = try ChildProcess(helper, ["steady", url.path, "300", "1000"])
                defer { child.stop() }
                let (seen, _) = try await consume(tail, count: 300)
                #expect(seen == (0..<300).map { .message("message \($0)") })
                #expect(try await child.waitForExit(seconds: 10) == 0)
            }
        }
    }

    /// A consumer slower than the producer misses nothing: the store is the buffer.
    @Test func aSlowConsumerMissesNothing() async throws {
        try await withTemporaryStore { store, _ in
            let tail = try await store.tail()
            let count = 3_000
            log(store, (0..<count / 2).map { "m\($0)" })
            let (seen, _) = try await consume(tail, count: count) { taken in
                if taken == 100 { log(store, (count / 2..<count).map { "m\($0)" }) }
                if taken % 500 == 0 { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(seen == (0..<count).map { .message("m\($0)") })
        }
    }

    /// The sweep removes what a slow tail has not read: the tail yields the rest of the one page
    /// it read ahead (no more: it reads at most a page ahead), reports the gap, then goes on.
    @Test func aSweepUnderASlowTailIsReportedAsAGap() async throws {
        var configuration = LogStore.Configuration()
        configuration.maxAge = .seconds(3_600)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            log(store, (0..<1_000).map { "old \($0)" }, createdAt: Date().addingTimeInterval(-7_200))
            try await store.flush()
            let gaps = GapRecorder()
            let tail = try await store.tail(from: .after(MessageQuery.Cursor(lastID: 0))) { gaps.record($0) }
            let pageSize = MessageTail.pageSize
            let (seen, messages) = try await consume(tail, count: pageSize + 3, gaps: gaps) { taken in
                guard taken == 1 else { return }
                let report = try await store.sweep()
                #expect(report.removedMessages == 1_000)
                log(store, ["new 0", "new 1", "new 2"])
            }
            let firstID = try #require(messages.first?.id)
            let oldTexts: [Seen] = (0..<pageSize).map { .message("old \($0)") }
            let gap = Seen.gap((firstID + Int64(pageSize))...(firstID + 999))
            #expect(seen == oldTexts + [gap, .message("new 0"), .message("new 1"), .message("new 2")])
        }
    }

    /// `removeAll` while the tail is caught up loses nothing it had not shown, and SQLite gives
    /// the freed ids to the new rows: the tail still yields them.
    @Test func followsNewMessagesAfterRemoveAll() async throws {
        try await withTemporaryStore { store, _ in
            let gaps = GapRecorder()
            let tail = try await store.tail { gaps.record($0) }
            log(store, ["a", "b", "c"])
            let (seen, _) = try await consume(tail, count: 5, gaps: gaps) { taken in
                guard taken == 3 else { return }
                try await store.removeAll()
                log(store, ["d", "e"])
            }
            #expect(seen == ["a", "b", "c", "d", "e"].map(Seen.message))
        }
    }

    @Test func startsWithTheNewestMatches() async throws {
        try await withTemporaryStore { store, _ in
            log(store, (0..<10).map { "m\($0)" })
            log(store, ["w0", "w1"], level: .warning)
            try await store.flush()
            let tail = try await store.tail(MessageQuery(levels: .trace ... .info), from: .last(3))
            log(store, ["m10"])
            let (seen, _) = try await consume(tail, count: 4)
            #expect(seen == ["m7", "m8", "m9", "m10"].map(Seen.message))
        }
    }

    @Test func resumesAfterACursorWithoutRepeating() async throws {
        try await withTemporaryStore { store, _ in
            log(store, (0..<10).map { "m\($0)" })
            try await store.flush()
            let gaps = GapRecorder()
            let first = try await consume(try await store.tail(from: .last(10)), count: 4)
            let cursor = MessageQuery.Cursor(lastID: try #require(first.messages.last?.id))
            let rest = try await consume(try await store.tail(from: .after(cursor)) { gaps.record($0) }, count: 6, gaps: gaps)
            #expect(first.seen + rest.seen == (0..<10).map { .message("m\($0)") })
            #expect(gaps.take().isEmpty)
        }
    }

    /// Resuming after a cursor the sweep has passed says what was lost while nobody tailed.
    @Test func resumingPastASweptCursorReportsTheGap() async throws {
        var configuration = LogStore.Configuration()
        configuration.maxAge = .seconds(3_600)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            log(store, (0..<10).map { "old \($0)" }, createdAt: Date().addingTimeInterval(-7_200))
            log(store, ["kept"])
            try await store.flush()
            let old = try await store.messages(MessageQuery(order: .oldestFirst)).messages.map(\.id)
            try await store.sweep()
            log(store, ["new"])
            try await store.flush()
            let gaps = GapRecorder()
            let tail = try await store.tail(from: .after(MessageQuery.Cursor(lastID: old[2]))) { gaps.record($0) }
            let (seen, _) = try await consume(tail, count: 2, gaps: gaps)
            #expect(seen == [.gap(old[3]...old[9]), .message("kept"), .message("new")])
        }
    }

    /// A task counting what `tail` yields, returned once it has received a first message
    /// (logged here), so the tail is then waiting for the next commit.
    func countingAfterTheFirst(_ tail: MessageTail, of store: LogStore) async throws -> Task<Int, any Error> {
        let (started, didStart) = AsyncStream<Void>.makeStream()
        let consumer = Task {
            var count = 0
            for try await _ in tail {
                count += 1
                didStart.yield()
            }
            return count
        }
        log(store, ["one"])
        // A bound, not a wait (a commit reaches the tail in well under a second alone; the
        // whole suite on two cores stretches every test to tens of seconds).
        _ = try await withinTimeLimit(seconds: 30) { for await _ in started { return } }
        return consumer
    }

    @Test func endsWhenTheConsumingTaskIsCancelled() async throws {
        try await withTemporaryStore { store, _ in
            let tail = try await store.tail()
            let consumer = try await countingAfterTheFirst(tail, of: store)
            // Now waiting for a commit that never comes: cancelling must end it at once.
            consumer.cancel()
            #expect(try await withinTimeLimit(seconds: 10) { try await consumer.value } == 1)
        }
    }

    @Test func endsWhenTheStoreCloses() async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create])
            let tail = try await store.tail()
            let consumer = try await countingAfterTheFirst(tail, of: store)
            try await store.close()
            #expect(try await withinTimeLimit(seconds: 10) { try await consumer.value } == 1)
            await #expect(throws: LogStoreError.closed) { try await store.tail() }
        }
    }
}
