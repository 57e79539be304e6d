import Dispatch
import Foundation
import Glibc
import Testing

@testable import LogStore

/// The sweep through the public API: age, blob share and size limits, orphan files, shrinking,
/// the schedule, and a store left consistent by every sweep.
@Suite("Sweep")
struct SweepTests {
    static let url = URL(string: "https://api.example.com/v1/orders")!
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Tests count what they logged: producers wait for room instead of losing events when the
    /// writer is slow (the machine busy with other tests).
    static func lossless() -> LogStore.Configuration {
        var configuration = LogStore.Configuration()
        configuration.overflowPolicy = .waitForSpace
        return configuration
    }

    /// A clock stopped at `now` that records every wait the schedule asks for and then waits
    /// until it is cancelled (the store closes): a test reads what the schedule decided
    /// instead of sleeping and seeing nothing happen.
    static func recordingClock(at now: Date, waits: Recorder<[Duration]>) -> LogStore.TimeSource {
        LogStore.TimeSource(now: { now }, sleep: { duration in
            waits.update { $0.append(duration) }
            try await Task.sleep(for: .seconds(86_400))
        })
    }

    /// Waits (at most `seconds`) until the schedule has asked `waits` for a wait.
    static func firstWait(_ waits: Recorder<[Duration]>, seconds: Double = 10) async throws -> Duration {
        let deadline = ContinuousClock.now + .seconds(TimeScale.scaled(seconds))
        while ContinuousClock.now < deadline {
            if let first = waits.current.first { return first }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TimeLimitExceeded(seconds: seconds)
    }

    /// A clock stopped at `now` that sleeps for real.
    static func stoppedClock(at now: Date) -> LogStore.TimeSource {
        LogStore.TimeSource(now: { now }, sleep: { try await Task.sleep(for: $0) })
    }

    /// A clock running `scale` times faster than real time, from `start`.
    static func fastClock(from start: Date, scale: Double) -> LogStore.TimeSource {
        let origin = Date()
        return LogStore.TimeSource(
            now: { start.addingTimeInterval(Date().timeIntervalSince(origin) * scale) },
            sleep: { try await Task.sleep(for: $0 / scale) })
    }

    static func randomBody(seed: UInt64, size: Int) -> Data {
        var random = SeededRandom(seed: seed)
        return Data((0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }

    // MARK: Age

    @Test func theAgeCutOffRemovesWhatIsOlderAndKeepsTheBoundary() async throws {
        var configuration = SweepTests.lossless()
        configuration.maxAge = .seconds(86_400)
        configuration.timeSource = Self.stoppedClock(at: Self.now)
        let cutoff = Self.now.addingTimeInterval(-86_400)
        try await withTemporaryStore(configuration: configuration) { store, url in
            store.storeMessage(createdAt: cutoff.addingTimeInterval(-1), label: "age", level: .info, message: "older")
            store.storeMessage(createdAt: cutoff, label: "age", level: .info, message: "at the cut-off")
            store.storeMessage(createdAt: cutoff.addingTimeInterval(1), label: "age", level: .info, message: "newer")
            store.storeRequest(
                NetworkRequest(url: Self.url), response: NetworkResponse(statusCode: 200), error: nil,
                data: Data(#"{"old":true}"#.utf8), createdAt: cutoff.addingTimeInterval(-1))
            store.storeRequest(
                NetworkRequest(url: Self.url), response: NetworkResponse(statusCode: 200), error: nil,
                data: Data(#"{"old":false}"#.utf8), createdAt: cutoff.addingTimeInterval(1))
            try await store.flush()

            let report = try await store.sweep()
            #expect(report.trigger == .manual)
            #expect(report.date == Self.now)
            #expect(report.removedMessages == 1)
            #expect(report.removedTasks == 1)
            #expect(report.removedBlobs == 1)
            #expect(try await allMessages(store, MessageQuery(labels: ["age"])).map(\.text)
                == ["at the cut-off", "newer"])
            let tasks = try await store.tasks(TaskQuery()).tasks
            #expect(tasks.map(\.createdAt) == [cutoff.addingTimeInterval(1)])
            // The old task's technical message went with it.
            #expect(try await allMessages(store, MessageQuery(labels: ["network"], includesTaskMessages: true)).count == 1)
            #expect(try await store.info().lastSweep == report)
            try await expectConsistent(store, at: url)
        }
    }

    @Test func oldSessionsGoAndTheStraddlingOneIsCutRowByRow() async throws {
        try await withTemporaryStoreURL { url in
            // Three runs: all old, half old (interleaved with the cut-off), all new.
            for run in 0..<3 {
                try await withStore(at: url, configuration: Self.lossless()) { store in
                    for i in 0..<3_000 {
                        let age: TimeInterval = switch run {
                        case 0: 10 * 86_400 + Double(i)
                        case 1: i.isMultiple(of: 2) ? 2 * 86_400 - Double(i) : 86_400 - Double(i)
                        default: 3_600 - Double(i) / 10
                        }
                        store.storeMessage(
                            createdAt: Self.now.addingTimeInterval(-age), label: "run\(run)", level: .info,
                            message: "\(run).\(i)")
                    }
                }
            }
            var configuration = SweepTests.lossless()
            configuration.maxAge = .seconds(1.5 * 86_400)
            configuration.timeSource = Self.stoppedClock(at: Self.now)
            try await withStore(at: url, options: [], configuration: configuration) { store in
                #expect(try await store.sessions().count == 4)
                let report = try await store.sweep()
                #expect(report.removedMessages == 3_000 + 1_500)
                let texts = try await allMessages(store).map(\.text)
                #expect(texts == (0..<3_000).filter { $0 % 2 == 1 }.map { "1.\($0)" } + (0..<3_000).map { "2.\($0)" })
                #expect(try await store.count(MessageQuery(labels: ["run1"])) == 1_500)
                // The first run's session has nothing left; the others stay.
                #expect(try await store.sessions().count == 3)
                try await expectConsistent(store, at: url)
            }
        }
    }

    /// A sweep that empties the table lets SQLite give out ids from 1 again: the writer must
    /// not stretch its open block backwards over them, or session and time queries lose them.
    @Test func messagesAfterASweepThatEmptiedTheStoreAreFound() async throws {
        var configuration = SweepTests.lossless()
        configuration.maxAge = .seconds(3_600)
        configuration.timeSource = Self.stoppedClock(at: Self.now)
        try await withTemporaryStoreURL { url in
            // An earlier run takes ids 1…50; this run's open block starts at 51.
            try await withStore(at: url, configuration: configuration) { store in
                for i in 0..<50 {
                    store.storeMessage(createdAt: Self.now.addingTimeInterval(-7_200), label: "old", level: .info, message: "\(i)")
                }
            }
            try await withStore(at: url, configuration: configuration) { store in
                for i in 0..<100 {
                    store.storeMessage(createdAt: Self.now.addingTimeInterval(-7_200), label: "old", level: .info, message: "\(i)")
                }
                try await store.flush()
                try await store.sweep()
                #expect(try await store.count(MessageQuery()) == 0)
                store.storeMessage(createdAt: Self.now, label: "new", level: .info, message: "after")
                try await store.flush()
                let query = MessageQuery(sessions: [store.session.id], since: Self.now.addingTimeInterval(-60))
                #expect(try await store.messages(query).messages.map(\.text) == ["after"])
                try await expectConsistent(store, at: url)
            }
        }
    }

    /// Two processes share a store; one logs old-dated messages (an import) while the other logs
    /// current ones between its batches: the age cut-off removes only the old ones.
    @Test func theAgeCutOffKeepsAnotherWritersNewMessagesInsideAnOldBlock() async throws {
        var configuration = SweepTests.lossless()
        configuration.maxAge = .seconds(86_400)
        configuration.timeSource = Self.stoppedClock(at: Self.now)
        try await withTemporaryStoreURL { url in
            let importer = try await LogStore(storeURL: url, options: [.create], configuration: configuration)
            let live = try await LogStore(storeURL: url, options: [], configuration: configuration)
            for round in 0..<3 {
                for i in 0..<100 {
                    importer.storeMessage(
                        createdAt: Self.now.addingTimeInterval(-3 * 86_400), label: "import", level: .info,
                        message: "\(round).\(i)")
                }
                try await importer.flush()
                for i in 0..<10 {
                    live.storeMessage(createdAt: Self.now, label: "live", level: .info, message: "\(round).\(i)")
                }
                try await live.flush()
            }
            let report = try await importer.sweep()
            #expect(report.removedMessages == 300)
            #expect(try await importer.count(MessageQuery(labels: ["live"])) == 30)
            #expect(try await allMessages(importer).map(\.label) == Array(repeating: "live", count: 30))
            try await expectConsistent(importer, at: url)
            try await live.close()
            try await importer.close()
        }
    }

    @Test func theNewestSessionAndYoungSessionsAreNeverDeleted() async throws {
        var configuration = SweepTests.lossless()
        configuration.maxAge = .seconds(3_600)
        try await withTemporaryStoreURL { url in
            let first = try await LogStore(storeURL: url, options: [.create], configuration: configuration)
            first.storeMessage(createdAt: Date().addingTimeInterval(-7_200), label: "old", level: .info, message: "x")
            try await first.flush()
            // A second process opens and has not logged yet; the first one sweeps.
            let second = try await LogStore(storeURL: url, options: [], configuration: configuration)
            try await first.sweep()
            let sessions = try await first.sessions().map(\.id)
            #expect(sessions.contains(second.session.id))
            #expect(sessions.contains(first.session.id))
            try await second.close()
            try await first.close()
        }
    }

    // MARK: Size

    /// Writes 20,000 messages (and a task per 1,000) and returns the store's size once closed, as
    /// the sweep measures it (database, WAL and blob files).
    private static func fillForSize(_ url: URL) async throws -> Int64 {
        try await withStore(at: url, configuration: lossless()) { store in
            let padding = String(repeating: "x", count: 200)
            try await onOwnThread {
                for i in 0..<sizeTestTotal {
                    store.storeMessage(label: "size", level: .info, message: "\(i) \(padding)")
                    if i.isMultiple(of: 1_000) {
                        store.storeRequest(
                            NetworkRequest(url: Self.url), response: NetworkResponse(statusCode: 200), error: nil,
                            data: Data(#"{"i":\#(i)}"#.utf8))
                    }
                }
            }
        }
        return try await withStore(at: url, options: [.readonly]) { try await $0.info().totalStoreSize }
    }

    static let sizeTestTotal = 20_000

    @Test func trimmingForSizeKeepsTheNewestSeventyPercent() async throws {
        try await withTemporaryStoreURL { url in
            let size = try await Self.fillForSize(url)
            var configuration = SweepTests.lossless()
            // Over the limit, and removing 30 % brings it under: the plain rule.
            configuration.sizeLimit = size * 8 / 10
            try await withStore(at: url, options: [], configuration: configuration) { store in
                let total = Self.sizeTestTotal
                let before = try await store.info()
                let report = try await store.sweep()

                let remaining = try await allMessages(store, MessageQuery(labels: ["size"]))
                #expect(abs(remaining.count - total * 7 / 10) <= total / 100, "\(remaining.count) remain")
                #expect(report.removedMessages == total - remaining.count)
                // The newest remain, in order.
                let first = total - remaining.count
                #expect(remaining.map { $0.text.prefix { $0 != " " } } == (first..<total).map { Substring(String($0)) })
                // Tasks logged among the removed messages went with them.
                #expect(report.removedTasks == (0..<first).filter { $0.isMultiple(of: 1_000) }.count)
                #expect(try await store.info().taskCount == before.taskCount - report.removedTasks)
                #expect(report.sizeAfter < report.sizeBefore)
                #expect(try await store.info().totalStoreSize <= configuration.sizeLimit)
                try await expectConsistent(store, at: url)
            }
        }
    }

    @Test func farOverTheLimitItTrimsToSeventyPercentOfTheLimit() async throws {
        try await withTemporaryStoreURL { url in
            let size = try await Self.fillForSize(url)
            var configuration = SweepTests.lossless()
            // Keeping 70 % would leave it twice over: keep what fits 70 % of the limit instead.
            configuration.sizeLimit = size / 4
            try await withStore(at: url, options: [], configuration: configuration) { store in
                let total = Double(Self.sizeTestTotal)
                try await store.sweep()
                let remaining = Double(try await store.count(MessageQuery(labels: ["size"])))
                let expected = total * 0.7 / 4
                #expect(abs(remaining - expected) <= total * 0.03, "\(remaining) remain, about \(expected) expected")
                #expect(try await store.info().totalStoreSize <= configuration.sizeLimit)
                try await expectConsistent(store, at: url)
            }
        }
    }

    /// So far over the limit that what is kept rounds to no message at all (a few messages in a
    /// store whose own pages exceed the limit): all but the newest go. (The cut used to be looked
    /// up past the last message, found no row, and nothing was trimmed.)
    @Test func farOverTheLimitWithFewMessagesAllButTheNewestGo() async throws {
        var configuration = SweepTests.lossless()
        configuration.sizeLimit = 20_000
        try await withTemporaryStore(configuration: configuration) { store, _ in
            for i in 0..<5 { store.storeMessage(label: "few", level: .info, message: "\(i)") }
            try await store.flush()
            let report = try await store.sweep()
            #expect(report.removedMessages == 4)
            #expect(try await allMessages(store).map(\.text) == ["4"])
        }
    }

    /// A size sweep starts at 85 % of the limit, leaving room for what is logged while it runs:
    /// a store at 90 % of its limit is trimmed, one at 80 % is not.
    @Test func aSizeSweepStartsBeforeTheLimitIsReached() async throws {
        try await withTemporaryStoreURL { url in
            let size = try await Self.fillForSize(url)
            let total = Self.sizeTestTotal
            var configuration = SweepTests.lossless()
            configuration.sizeLimit = size * 10 / 8
            try await withStore(at: url, options: [], configuration: configuration) { store in
                let report = try await store.sweep()
                #expect(report.removedMessages == 0, "at 80 % of the limit nothing is trimmed")
            }
            configuration.sizeLimit = size * 10 / 9
            try await withStore(at: url, options: [], configuration: configuration) { store in
                let report = try await store.sweep()
                let remaining = try await store.count(MessageQuery(labels: ["size"]))
                #expect(abs(remaining - total * 7 / 10) <= total / 100, "at 90 %: \(remaining) remain")
                #expect(report.removedMessages == total - remaining)
                try await expectConsistent(store, at: url)
            }
        }
    }

    /// Sweep steps are sized by time and by the WAL they write: deleting rows with random keys
    /// touches a page per key, and the WAL counts against the size limit.
    @Test func stepsAreHeldToTheWALBytesOfATransaction() {
        var size = StepSize(rows: 1_000, range: 1...100_000)
        // Time alone would allow 4,000 rows; 8 MiB of WAL for a 4 MiB limit halves the step.
        size.adjust(rows: 1_000, took: .milliseconds(10), target: .milliseconds(40), wrote: 8 << 20, byteLimit: 4 << 20)
        #expect(size.rows == 500)
        // Little WAL: time decides.
        size.adjust(rows: 500, took: .milliseconds(20), target: .milliseconds(40), wrote: 1 << 20, byteLimit: 4 << 20)
        #expect(size.rows == 1_000)
        // Never below the range.
        size.adjust(rows: 1_000, took: .milliseconds(1), target: .milliseconds(40), wrote: 1 << 40, byteLimit: 1 << 20)
        #expect(size.rows == 1)
    }

    /// What sizes the steps by WAL: the pages a connection wrote, counted at commit.
    @Test func theWALPagesAConnectionWroteAreCounted() async throws {
        try await withTemporaryDirectory { directory in
            let connection = try Connection(path: directory.appendingPathComponent("wal.sqlite").path, mode: .readWrite(create: true))
            defer { connection.close() }
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.execute("CREATE TABLE t (data BLOB)")
            let before = connection.pagesWritten
            try connection.execute("BEGIN")
            for seed: UInt64 in 0..<16 {
                try connection.run("INSERT INTO t (data) VALUES (?)", [.blob(Array(Self.randomBody(seed: seed, size: 64 << 10)))])
            }
            #expect(connection.pagesWritten == before, "nothing is written before the commit")
            try connection.execute("COMMIT")
            let pageSize = try #require(try connection.integer("PRAGMA page_size"))
            let written = Int64(connection.pagesWritten - before) * pageSize
            // 1 MiB of rows, plus the overflow chain and table pages.
            #expect(written >= 1 << 20 && written < 2 << 20, "\(written) bytes")
        }
    }

    @Test func theBlobShareDropsTheOldestBodiesAndKeepsTheTasks() async throws {
        var configuration = SweepTests.lossless()
        configuration.sizeLimit = 2_000_000  // blobs may take 1.4 MB; the sweep brings them to 0.98 MB
        try await withTemporaryStore(configuration: configuration) { store, url in
            for i in 0..<30 {
                store.storeRequest(
                    NetworkRequest(url: Self.url), response: NetworkResponse(statusCode: 200), error: nil,
                    data: Self.randomBody(seed: UInt64(i), size: 60_000),
                    createdAt: Self.now.addingTimeInterval(Double(i)))
            }
            try await store.flush()
            #expect(try await store.info().blobsSize > 1_400_000)

            let report = try await store.sweep()
            let info = try await store.info()
            #expect(info.blobsSize <= 980_000)
            #expect(info.blobsSize > 900_000, "only what was needed is dropped")
            #expect(info.taskCount == 30)
            #expect(report.removedTasks == 0)
            #expect(report.removedMessages == 0)
            #expect(report.droppedBodies == 30 - info.blobCount)

            let tasks = try await store.tasks(TaskQuery(order: .oldestFirst, limit: 100)).tasks
            var removed: [Bool] = []
            for task in tasks {
                let details = try #require(try await store.task(id: task.id))
                removed.append(details.isResponseBodyRemoved)
                #expect(details.isResponseBodyRemoved == (details.responseBodyKey == nil))
                #expect(details.response?.statusCode == 200)
            }
            // The oldest lost their bodies, the newest kept them.
            #expect(removed == Array(repeating: true, count: report.droppedBodies)
                + Array(repeating: false, count: 30 - report.droppedBodies))
            let files = try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent("blobs").path)
            #expect(files.count == info.blobCount)
            try await expectConsistent(store, at: url)
        }
    }

    @Test func aSharedBodySurvivesWhileATaskLinksIt() async throws {
        var configuration = SweepTests.lossless()
        configuration.maxAge = .seconds(3_600)
        configuration.timeSource = Self.stoppedClock(at: Self.now)
        let body = Self.randomBody(seed: 7, size: 40_000)
        try await withTemporaryStore(configuration: configuration) { store, url in
            for age in [7_200.0, 60] {
                store.storeRequest(
                    NetworkRequest(url: Self.url), response: NetworkResponse(statusCode: 200), error: nil, data: body,
                    createdAt: Self.now.addingTimeInterval(-age))
            }
            try await store.flush()
            let report = try await store.sweep()
            #expect(report.removedTasks == 1)
            #expect(report.removedBlobs == 0)
            let task = try #require(try await store.tasks(TaskQuery()).tasks.first)
            let key = try #require(try await store.task(id: task.id)?.responseBodyKey)
            #expect(try await store.blobData(forKey: key) == body)

            // The last link goes with the last task, and so does the file.
            try await store.removeAll()
            #expect(try await store.blobData(forKey: key) == nil)
            try await expectConsistent(store, at: url)
        }
    }

    // MARK: Files

    @Test func orphanAndStaleTemporaryFilesAreRemovedFreshOnesKept() async throws {
        try await withTemporaryStore(configuration: Self.lossless()) { store, url in
            store.storeRequest(
                NetworkRequest(url: Self.url), response: nil, error: nil, data: Self.randomBody(seed: 1, size: 40_000))
            try await store.flush()
            let blobs = url.appendingPathComponent("blobs")
            let kept = try FileManager.default.contentsOfDirectory(atPath: blobs.path)
            let old = Date().addingTimeInterval(-3_600)
            let orphan = LogStore.blobKey(for: Data("left by a crash".utf8))
            let temporary = ".tmp-\(orphan)-99"
            let fresh = LogStore.blobKey(for: Data("being written by another process".utf8))
            for name in [orphan, temporary, fresh] {
                try Data(name.utf8).write(to: blobs.appendingPathComponent(name))
            }
            for name in [orphan, temporary] {
                try FileManager.default.setAttributes(
                    [.modificationDate: old], ofItemAtPath: blobs.appendingPathComponent(name).path)
            }
            let report = try await store.sweep()
            #expect(report.removedOrphanFiles == 2)
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: blobs.path)) == Set(kept + [fresh]))
        }
    }

    @Test func theFileShrinksAndTheWALIsEmptied() async throws {
        var configuration = SweepTests.lossless()
        configuration.maxAge = .seconds(86_400)
        configuration.timeSource = Self.stoppedClock(at: Self.now)
        // Partitions of the search index of 4,096 messages (a sixteenth of 64 MB, far above the
        // 37 MB logged): the swept messages' partitions are dropped whole. With the default
        // 256 MB all 30,000 share one, whose words (a unique 300-letter one per message) stay
        // until it is dropped in turn.
        configuration.sizeLimit = 64_000_000
        try await withTemporaryStore(configuration: configuration) { store, url in
            let padding = String(repeating: "y", count: 300)
            try await onOwnThread {
                for i in 0..<30_000 {
                    let age: TimeInterval = i < 27_000 ? 2 * 86_400 : 60
                    store.storeMessage(
                        createdAt: Self.now.addingTimeInterval(-age), label: "shrink", level: .debug, message: "\(i)\(padding)")
                }
            }
            try await store.flush()
            // The index catches up first: its steps after the sweep would write the WAL again.
            try await SearchIndexTests.waitUntilIndexed(store)
            let database = url.appendingPathComponent("logs.sqlite")
            let before = try fileSize(database) + fileSize(url.appendingPathComponent("logs.sqlite-wal"))
            let report = try await store.sweep()
            #expect(report.removedMessages == 27_000, "\(report)")
            let after = try fileSize(database)
            #expect(after < before / 4, "\(before) → \(after) bytes")
            #expect(try fileSize(url.appendingPathComponent("logs.sqlite-wal")) == 0)
            #expect(report.reclaimedBytes > 0)
            #expect(try await store.count(MessageQuery()) == 3_000)
            try await expectConsistent(store, at: url)
        }
    }

    // MARK: Schedule

    /// Callers that park every thread of Swift's cooperative pool (blocking logging calls in
    /// async code) must not stop the schedule: it runs on the sweep's own thread.
    @Test func theScheduleSweepsWhileTheCooperativePoolIsParked() async throws {
        var configuration = SweepTests.lossless()
        configuration.timeSource = Self.stoppedClock(at: Self.now)
        configuration.sweepDelay = .milliseconds(100)
        try await withTemporaryStore(options: [.create, .sweep], configuration: configuration) { _, url in
            // More parked tasks than the pool has threads; this test's own thread waits too.
            let release = DispatchSemaphore(value: 0)
            let parked = 4 * max(2, ProcessInfo.processInfo.activeProcessorCount)
            for _ in 0..<parked { Task.detached { release.wait() } }
            defer { for _ in 0..<parked { release.signal() } }
            var sweep: LogStore.SweepReport?
            let deadline = Date().addingTimeInterval(TimeScale.scaled(5))
            while sweep == nil && Date() < deadline {
                usleep(10_000)  // blocking on purpose: the pool is parked
                sweep = try Manifest.read(in: url).lastSweep
            }
            #expect(sweep?.trigger == .schedule, "no scheduled sweep while the pool was parked")
        }
    }

    @Test func theScheduleSweepsPeriodicallyWhileOpen() async throws {
        var configuration = SweepTests.lossless()
        // An hour of the store's clock per real second.
        configuration.timeSource = Self.fastClock(from: Self.now, scale: 3_600)
        configuration.sweepInterval = .seconds(3_600)
        try await withTemporaryStore(options: [.create, .sweep], configuration: configuration) { _, url in
            // Watched from a thread of its own: the sweeps are a second apart, and a watcher on
            // the cooperative pool could miss some while other tests keep the pool busy.
            let dates = try await watchOnThread(seconds: 15) { (dates: inout Set<Date>) in
                // Only scheduled sweeps count (a manifest mid-rewrite is read again next time).
                if let sweep = try? Manifest.read(in: url).lastSweep, sweep.trigger == .schedule {
                    dates.insert(sweep.date)
                }
                return dates.count >= 3
            }
            #expect(dates.count >= 3, "sweeps seen: \(dates.sorted())")
            // About an interval apart on the store's clock.
            let sorted = dates.sorted()
            for (earlier, later) in zip(sorted, sorted.dropFirst()) {
                #expect(later.timeIntervalSince(earlier) >= 3_600 * 0.9)
            }
        }
    }

    @Test func aRecentSweepIsNotRepeatedAtOpenAnOldOneIs() async throws {
        try await withTemporaryStoreURL { url in
            var configuration = SweepTests.lossless()
            configuration.timeSource = Self.stoppedClock(at: Self.now)
            try await withStore(at: url, configuration: configuration) { store in _ = try await store.sweep() }

            configuration.sweepDelay = .milliseconds(10)
            let waits = Recorder<[Duration]>([])
            configuration.timeSource = Self.recordingClock(at: Self.now.addingTimeInterval(600), waits: waits)
            try await withStore(at: url, options: [.sweep], configuration: configuration) { store in
                // The schedule waits for the rest of the interval instead of sweeping now.
                let wait = try await Self.firstWait(waits)
                #expect(abs(wait.seconds - (configuration.sweepInterval.seconds - 600)) < 1, "\(wait)")
                #expect(try await store.info().lastSweep?.date == Self.now)
            }
            let later = Self.now.addingTimeInterval(2 * 3_600)
            configuration.timeSource = Self.stoppedClock(at: later)
            try await withStore(at: url, options: [.sweep], configuration: configuration) { store in
                let deadline = Date().addingTimeInterval(TimeScale.scaled(10))
                while try await store.info().lastSweep?.date != later, Date() < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                let sweep = try await store.info().lastSweep
                #expect(sweep?.date == later)
                #expect(sweep?.trigger == .schedule)
            }
        }
    }

    @Test func growingPastTheSizeLimitSweepsAtOnce() async throws {
        var configuration = SweepTests.lossless()
        configuration.sizeLimit = 2_000_000
        // The schedule alone would not sweep during the test.
        configuration.sweepDelay = .seconds(3_600)
        try await withTemporaryStore(options: [.create, .sweep], configuration: configuration) { store, _ in
            // About 3 MB of messages: past the limit, whatever the page overhead.
            let padding = String(repeating: "z", count: 300)
            for i in 0..<10_000 {
                store.storeMessage(label: "grow", level: .info, message: "\(i) \(padding)")
                if i.isMultiple(of: 1_000) { try await store.flush() }
            }
            try await store.flush()
            let deadline = ContinuousClock.now + .seconds(TimeScale.scaled(10))
            while try await store.info().lastSweep == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            let sweep = try #require(try await store.info().lastSweep)
            #expect(sweep.trigger == .size)
            #expect(sweep.removedMessages > 0)
        }
    }

    // MARK: A killed sweep

    /// A sweep is a series of complete transactions: killed between (or during) any of them, it
    /// leaves a store whose counts, links, totals and files all agree, and the next open or sweep
    /// finishes the job.
    static let killedStoreSize = 100_000

    @Test func aSweepKilledMidwayLeavesAConsistentStore() async throws {
        let tool = KilledWriterTests.tool
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "missing \(tool.path)")
        try await withTemporaryStoreURL { url in
            try await withStore(at: url, configuration: Self.lossless()) { store in
                let padding = String(repeating: "k", count: 150)
                try await onOwnThread {
                    for i in 0..<Self.killedStoreSize {
                        store.storeMessage(label: "kill", level: .info, message: "\(i) \(padding)")
                        if i.isMultiple(of: 100) {
                            store.storeRequest(
                                NetworkRequest(url: Self.url), response: NetworkResponse(statusCode: 200), error: nil,
                                data: Self.randomBody(seed: UInt64(i % 3_000), size: i.isMultiple(of: 500) ? 30_000 : 900))
                        }
                    }
                }
            }
            let child = try ChildProcess(tool, ["sweep", url.path, "--max-age", "0s"])
            defer { child.stop() }
            // Once a few of its steps have committed (the counts it keeps drop), kill it without
            // warning.
            // Polled on a connection of its own, on a thread of its own: no actor or queue to wait
            // for while the machine is busy with other tests, and no cooperative thread held.
            let databasePath = url.appendingPathComponent("logs.sqlite").path
            let wasRunning = try await onOwnThread { [child] in
                let observer = try Connection(path: databasePath, mode: .readOnly)
                defer { observer.close() }
                func counted() -> Int {
                    let count = try? observer.integer("SELECT coalesce(sum(count), 0) FROM message_counts")
                    return Int((count ?? nil) ?? Int64(Self.killedStoreSize))
                }
                let deadline = Date().addingTimeInterval(TimeScale.scaled(20))
                while child.isRunning, Date() < deadline, counted() >= Self.killedStoreSize {
                    usleep(200)
                }
                let wasRunning = child.isRunning
                child.stop()
                guard child.waitForTermination(seconds: SpawnedProcess.killGraceSeconds) != nil else {
                    throw TimeLimitExceeded(seconds: SpawnedProcess.killGraceSeconds)
                }
                return wasRunning
            }
            #expect(wasRunning, "the sweep ended before it could be killed")

            try await withStore(at: url, options: []) { store in
                try await expectConsistent(store, at: url)
                let left = try await store.info().messageCount
                // Killed after its first step: during the deletes or the vacuum that follows.
                if wasRunning { #expect(left < Self.killedStoreSize, "killed midway: \(left) left") }
            }
            // The next sweep finishes the job.
            var configuration = SweepTests.lossless()
            configuration.maxAge = .zero
            try await withStore(at: url, options: [], configuration: configuration) { store in
                try await store.sweep()
                #expect(try await store.info().messageCount == 0)
                #expect(try await store.info().taskCount == 0)
                try await expectConsistent(store, at: url)
            }
        }
    }

    @Test func closingDuringASweepStopsItBeforeClosingReturns() async throws {
        var configuration = SweepTests.lossless()
        configuration.maxAge = .seconds(3_600)
        configuration.timeSource = Self.stoppedClock(at: Self.now)
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create], configuration: configuration)
            try await onOwnThread {
                for i in 0..<60_000 {
                    store.storeMessage(createdAt: Self.now.addingTimeInterval(-7_200), label: "old", level: .info, message: "\(i)")
                }
            }
            try await store.flush()
            // Closed once the sweep has begun (its first progress report), not after a guess at
            // how long it takes to begin.
            let begun = Recorder(false)
            let sweeping = Task { try await store.sweep(progress: { _ in begun.update { $0 = true } }) }
            try await waitFor { begun.current }
            try await store.close()
            let manifest = url.appendingPathComponent("manifest.json")
            let atClose = try Data(contentsOf: manifest)
            // The sweep has ended by now (stopped between steps, or finished before the close).
            if case .failure(let error) = await sweeping.result {
                #expect((error as? LogStoreError)?.kind == .closed, "\(error)")
            }
            // Its task has ended (awaited above): nothing it did after close() returned changed the
            // manifest.
            #expect(try Data(contentsOf: manifest) == atClose)
            try await withStore(at: url, options: [], configuration: configuration) { reopened in
                try await expectConsistent(reopened, at: url)
            }
        }
    }

    // MARK: What never sweeps

    @Test func aReadOnlyStoreNeverSweeps() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url, configuration: Self.lossless()) { store in
                store.storeMessage(createdAt: Self.now, label: "old", level: .info, message: "kept")
            }
            let manifest = try Data(contentsOf: url.appendingPathComponent("manifest.json"))
            var configuration = SweepTests.lossless()
            configuration.maxAge = .seconds(1)
            configuration.sweepDelay = .milliseconds(1)
            let readOnlyWaits = Recorder<[Duration]>([])
            configuration.timeSource = Self.recordingClock(at: Self.now.addingTimeInterval(3_600), waits: readOnlyWaits)
            try await withStore(at: url, options: [.readonly, .sweep], configuration: configuration) { store in
                let error = await #expect(throws: LogStoreError.self) { try await store.sweep() }
                #expect(error?.kind == .readonly)
                #expect(try await store.info().messageCount == 1)
                #expect(try Data(contentsOf: url.appendingPathComponent("manifest.json")) == manifest)
                // A writable store opened after it has started its schedule (it asked for its
                // first wait); the read-only one has none.
                let writerWaits = Recorder<[Duration]>([])
                var writerConfiguration = configuration
                writerConfiguration.sweepDelay = .seconds(3_600)
                writerConfiguration.timeSource = Self.recordingClock(at: Self.now, waits: writerWaits)
                try await withStore(at: url, options: [.sweep], configuration: writerConfiguration) { _ in
                    _ = try await Self.firstWait(writerWaits)
                }
                #expect(readOnlyWaits.current.isEmpty)
                #expect(try await store.info().messageCount == 1)
            }
        }
    }
}

// MARK: Consistency

/// Everything the sweep must keep true, checked on the store's own database: SQLite's checks,
/// counts and totals that match the rows, links that match their references, and files that
/// match the blob rows.
func expectConsistent(_ store: LogStore, at url: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let checks: [(String, String)] = [
        ("integrity", "SELECT CASE WHEN (SELECT integrity_check FROM pragma_integrity_check) = 'ok' THEN 0 ELSE 1 END"),
        ("foreign keys", "SELECT count(*) FROM pragma_foreign_key_check"),
        ("message counts", """
            SELECT count(*) FROM (
                SELECT session_id, label_id, level, count(*) AS n FROM messages WHERE task_id IS NULL
                GROUP BY 1, 2, 3
            ) AS actual FULL OUTER JOIN message_counts AS kept USING (session_id, label_id, level)
            WHERE actual.n IS NOT kept.count
            """),
        ("blob totals", """
            SELECT count(*) FROM blob_totals WHERE (count, size, decompressed_size, file_size) <> (
                SELECT count(*), coalesce(sum(size), 0), coalesce(sum(decompressed_size), 0),
                       coalesce(sum(CASE WHEN data IS NULL THEN size ELSE 0 END), 0) FROM blobs)
            """),
        ("blob links", """
            SELECT count(*) FROM blobs WHERE link_count <>
                (SELECT count(*) FROM tasks WHERE request_body_id = blobs.id)
                + (SELECT count(*) FROM tasks WHERE response_body_id = blobs.id)
            """),
        ("head links", """
            SELECT count(*) FROM task_heads WHERE link_count <>
                (SELECT count(*) FROM tasks WHERE request_head_id = task_heads.id)
                + (SELECT count(*) FROM tasks WHERE response_head_id = task_heads.id)
            """),
        ("technical messages", "SELECT count(*) FROM messages WHERE task_id IS NOT NULL AND task_id NOT IN (SELECT id FROM tasks)"),
        ("messages without a block", """
            SELECT count(*) FROM messages WHERE NOT EXISTS (
                SELECT 1 FROM message_blocks WHERE messages.id BETWEEN first_id AND last_id
                    AND messages.session_id = message_blocks.session_id)
            """),
    ]
    for (name, sql) in checks {
        let failures = try await store.read { db in try db.scalar(sql)?.integer }
        #expect(failures == 0, "\(name)", sourceLocation: sourceLocation)
    }
    let fileKeys = try await store.read { db in
        try db.rows("SELECT lower(hex(key)) FROM blobs WHERE data IS NULL").compactMap { $0[0].text }
    }
    let blobs = url.appendingPathComponent("blobs")
    let files = (try? FileManager.default.contentsOfDirectory(atPath: blobs.path)) ?? []
    #expect(Set(fileKeys).isSubset(of: Set(files)), "every file row has its file", sourceLocation: sourceLocation)
}

private func fileSize(_ url: URL) throws -> Int64 {
    guard FileManager.default.fileExists(atPath: url.path) else { return 0 }
    return (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
}
