import Foundation
@testable import LogStore
import Synchronization
import Testing

/// The archive format through the public API: export, open again, the same contents, filters,
/// a new store id, re-export, and what is left on disk.
@Suite("Archive export and open")
struct ArchiveTests {
    static let url = URL(string: "https://api.example.com/v1/orders?page=2")!
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// Random bytes do not compress: such a body stays in a file as it is.
    static func randomBody(_ count: Int, seed: UInt64) -> Data {
        var random = SeededRandom(seed: seed)
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    /// Two sessions of messages and tasks: small bodies (in the database), a large compressible
    /// one and a large random one (files), a failure, a task message.
    static func fill(_ url: URL) async throws -> [UUID] {
        var sessions: [UUID] = []
        for run in 0..<2 {
            try await withStore(at: url) { store in
                sessions.append(store.session.id)
                for index in 0..<200 {
                    store.storeMessage(
                        createdAt: start.addingTimeInterval(Double(run * 1_000 + index)), label: index % 2 == 0 ? "api" : "db",
                        level: index % 10 == 0 ? .error : .info, message: "run \(run) message \(index) apple",
                        metadata: ["index": .string("\(index)"), "nested": .dictionary(["run": .string("\(run)")])])
                }
                let json = NetworkResponse(url: url_, statusCode: 200, headers: ["Content-Type": "application/json"])
                store.storeRequest(
                    NetworkRequest(url: url_, method: "POST", headers: ["Content-Type": "application/json"],
                                   body: Data(#"{"order":\#(run)}"#.utf8)),
                    response: json, error: nil, data: Data(#"{"ok":true,"run":\#(run)}"#.utf8),
                    createdAt: start.addingTimeInterval(Double(run * 1_000 + 500)))
                store.storeRequest(
                    NetworkRequest(url: url_), response: NetworkResponse(url: url_, statusCode: 200), error: nil,
                    data: Data(String(repeating: "compressible line \(run)\n", count: 4_000).utf8),
                    createdAt: start.addingTimeInterval(Double(run * 1_000 + 501)))
                store.storeRequest(
                    NetworkRequest(url: url_), response: NetworkResponse(url: url_, statusCode: 500), error: nil,
                    data: randomBody(40_000, seed: UInt64(run + 1)),
                    createdAt: start.addingTimeInterval(Double(run * 1_000 + 502)))
                try await store.flush()
            }
        }
        return sessions
    }
    static let url_ = url

    static func allTasks(_ store: LogStore, _ query: TaskQuery = TaskQuery()) async throws -> [NetworkTaskSummary] {
        var query = query
        query.order = .oldestFirst
        query.limit = 1_000
        var tasks: [NetworkTaskSummary] = []
        while true {
            let page = try await store.tasks(query)
            tasks += page.tasks
            guard let cursor = page.nextCursor else { return tasks }
            query.cursor = cursor
        }
    }

    static func everyMessage(_ store: LogStore) async throws -> [LogStore.Message] {
        try await allMessages(store, MessageQuery(includesTaskMessages: true))
    }

    /// Exports the store at `storeURL` (opened read-write) with `options` to `name` beside it.
    static func export(
        _ storeURL: URL, _ name: String = "out.lsarchive", options: ExportOptions = ExportOptions()
    ) async throws -> (URL, ExportReport) {
        let target = storeURL.deletingLastPathComponent().appendingPathComponent(name)
        let report = try await withStore(at: storeURL) { store in try await store.export(to: target, options: options) }
        return (target, report)
    }

    @Test func roundTripGivesBackTheSameMessagesTasksBodiesAndSessions() async throws {
        try await withTemporaryStoreURL { storeURL in
            let sessions = try await Self.fill(storeURL)
            let target = storeURL.deletingLastPathComponent().appendingPathComponent("round.lsarchive")
            let (original, report, sourceID) = try await withStore(at: storeURL) { store in
                let messages = try await Self.everyMessage(store)
                let tasks = try await Self.allTasks(store)
                var bodies: [String: Data] = [:]
                for task in tasks {
                    let details = try #require(try await store.task(id: task.id))
                    for key in [details.requestBodyKey, details.responseBodyKey].compactMap({ $0 }) {
                        bodies[key] = try await store.blobData(forKey: key)
                    }
                }
                let report = try await store.export(to: target)
                return ((messages, tasks, bodies), report, try await store.info().storeID)
            }
            #expect(report.format == .archive)
            #expect(report.messageCount == 400)  // without the tasks' technical messages, as info() counts
            #expect(report.taskCount == 6)
            #expect(report.byteCount == (try FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int64))

            let archive = try await LogStore(archiveURL: target)
            let info = try #require(archive.archiveInfo)
            #expect(info.storeID == report.storeID)
            #expect(info.storeID != sourceID)
            #expect(info.sourceStoreID == sourceID)
            #expect(try await archive.info().storeID == info.storeID)
            #expect(info.messageCount == 400)
            #expect(try await archive.info().messageCount == 400)
            #expect(Set(sessions).isSubset(of: Set(info.sessions.map(\.id))))

            #expect(try await Self.everyMessage(archive) == original.0)
            #expect(try await Self.allTasks(archive) == original.1)
            #expect(original.2.count == 8)  // two request bodies, six responses
            for (key, body) in original.2 {
                #expect(try await archive.blobData(forKey: key) == body)
            }
            #expect(Set(try await archive.sessions().map(\.id)).isSuperset(of: sessions))
            // Search, counts and the tail work on it; a tail ends once read.
            #expect(try await archive.count(MessageQuery(text: .plain("apple"))) == 400)
            let tail = try await archive.tail(MessageQuery(), from: .last(3))
            let tailed = try await withinTimeLimit(seconds: 5) { try await tail.reduce(into: [LogStore.Message]()) { $0.append($1) } }
            #expect(tailed.count == 3)
            // Read-only: writes are refused.
            await #expect(throws: LogStoreError.readonly) { try await archive.removeAll() }
            try await archive.close()
        }
    }

    @Test func reExportFromAnArchiveKeepsItsContentsUnderANewID() async throws {
        try await withTemporaryStoreURL { storeURL in
            _ = try await Self.fill(storeURL)
            let (first, _) = try await Self.export(storeURL)
            let archive = try await LogStore(archiveURL: first)
            let second = first.deletingLastPathComponent().appendingPathComponent("second.lsarchive")
            let errors = first.deletingLastPathComponent().appendingPathComponent("errors.lsarchive")
            _ = try await archive.export(to: second)
            _ = try await archive.export(to: errors, options: ExportOptions(messages: MessageQuery(levels: .error ... .critical), tasks: nil))
            let expected = try await Self.everyMessage(archive)
            let firstID = try #require(archive.archiveInfo?.storeID)
            try await archive.close()

            let again = try await LogStore(archiveURL: second)
            #expect(try await Self.everyMessage(again) == expected)
            #expect(try await Self.allTasks(again).count == 6)
            #expect(again.archiveInfo?.storeID != firstID)
            try await again.close()

            let filtered = try await LogStore(archiveURL: errors)
            let kept = try await Self.everyMessage(filtered)
            #expect(kept.count == 40)
            #expect(kept.allSatisfy { $0.level == .error })
            #expect(try await Self.allTasks(filtered).isEmpty)
            #expect(try await filtered.blobs().isEmpty)
            try await filtered.close()
        }
    }

    @Test func filtersSelectSessionsTimesMessagesAndTasks() async throws {
        try await withTemporaryStoreURL { storeURL in
            let sessions = try await Self.fill(storeURL)
            func open(_ options: ExportOptions, _ name: String) async throws -> ([LogStore.Message], [NetworkTaskSummary], Int) {
                let (url, _) = try await Self.export(storeURL, name, options: options)
                let archive = try await LogStore(archiveURL: url)
                let result = (try await Self.everyMessage(archive), try await Self.allTasks(archive), try await archive.blobs().count)
                try await archive.close()
                return result
            }
            // One session: its 200 messages, its 3 tasks with their technical messages and bodies.
            let (bySession, sessionTasks, sessionBlobs) = try await open(ExportOptions(sessions: [sessions[0]]), "session.lsarchive")
            #expect(bySession.allSatisfy { $0.sessionID == sessions[0] })
            #expect(bySession.count == 203)
            #expect(sessionTasks.count == 3)
            #expect(sessionBlobs == 4)

            // A time range: the second run's first 100 messages, no task.
            let (byTime, timeTasks, _) = try await open(
                ExportOptions(since: Self.start.addingTimeInterval(1_000), until: Self.start.addingTimeInterval(1_100)), "time.lsarchive")
            #expect(byTime.count == 100)
            #expect(timeTasks.isEmpty)

            // A message query (label and text) without tasks: no bodies travel.
            let (byQuery, queryTasks, queryBlobs) = try await open(
                ExportOptions(messages: MessageQuery(labels: ["api"], text: .plain("message 10")), tasks: nil), "query.lsarchive")
            #expect(byQuery.map(\.text).sorted() == ["run 0 message 10 apple", "run 1 message 10 apple"])
            #expect(queryTasks.isEmpty)
            #expect(queryBlobs == 0)

            // Tasks only, failed ones: the 500s with their random bodies, no other message.
            let (failedMessages, failed, failedBlobs) = try await open(
                ExportOptions(messages: nil, tasks: TaskQuery(isFailure: true)), "failed.lsarchive")
            #expect(failed.map(\.statusCode) == [500, 500])
            #expect(failedMessages.count == 2)
            #expect(failedBlobs == 2)
        }
    }

    @Test(arguments: [LogStore.Options.inMemory, .unsafe])
    func storesReadThroughTheWriterExportToo(_ option: LogStore.Options) async throws {
        try await withTemporaryStore(options: [.create, option]) { store, storeURL in
            for index in 0..<100 { store.storeMessage(label: "a", level: .info, message: "one \(index)") }
            store.storeRequest(NetworkRequest(url: Self.url), response: NetworkResponse(statusCode: 200), error: nil,
                               data: Self.randomBody(30_000, seed: 9))
            try await store.flush()
            let target = storeURL.deletingLastPathComponent().appendingPathComponent("written.lsarchive")
            let filtered = storeURL.deletingLastPathComponent().appendingPathComponent("filtered.lsarchive")
            _ = try await store.export(to: target)
            _ = try await store.export(to: filtered, options: ExportOptions(messages: MessageQuery(text: .plain("one"))))
            for url in [target, filtered] {
                let archive = try await LogStore(archiveURL: url)
                #expect(try await archive.count(MessageQuery()) == 100)
                let task = try #require(try await archive.tasks(TaskQuery()).tasks.first)
                let key = try #require(try await archive.task(id: task.id)?.responseBodyKey)
                #expect(try await archive.blobData(forKey: key) == Self.randomBody(30_000, seed: 9))
                try await archive.close()
            }
            // The store keeps working after exports borrowed its connection.
            store.storeMessage(label: "a", level: .info, message: "after")
            try await store.flush()
            #expect(try await store.count(MessageQuery()) == 101)
        }
    }

    /// Stores of older schemas (opened read-only, so not migrated) export archives of this
    /// schema, whole or filtered.
    @Test(arguments: ["store-v1.logstore", "store-v3.logstore", "store-v6.logstore"])
    func olderStoresExportArchivesThatOpen(_ fixture: String) async throws {
        try await withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent(fixture)
            try FileManager.default.copyItem(at: FixtureTests.fixtures.appendingPathComponent(fixture), to: copy)
            let store = try await LogStore(storeURL: copy, options: [.readonly])
            let expected = try await allMessages(store)
            let errors = try await allMessages(store, MessageQuery(levels: .error ... .critical))
            let whole = directory.appendingPathComponent("whole.lsarchive")
            let filtered = directory.appendingPathComponent("errors.lsarchive")
            _ = try await store.export(to: whole)
            _ = try await store.export(to: filtered, options: ExportOptions(messages: MessageQuery(levels: .error ... .critical)))
            try await store.close()
            for (url, messages) in [(whole, expected), (filtered, errors)] {
                let archive = try await LogStore(archiveURL: url)
                #expect(try await allMessages(archive).map(\.text) == messages.map(\.text))
                #expect(archive.archiveInfo?.schemaVersion == Migrations.latestVersion)
                try await archive.close()
            }
        }
    }

    @Test func aTaskMessageTravelsOnlyWithItsTask() async throws {
        try await withTemporaryStoreURL { storeURL in
            _ = try await Self.fill(storeURL)
            let (url, _) = try await Self.export(
                storeURL, options: ExportOptions(messages: MessageQuery(includesTaskMessages: true), tasks: TaskQuery(isFailure: true)))
            let archive = try await LogStore(archiveURL: url)
            // Every message plus the technical messages of the two failed tasks only.
            #expect(try await Self.everyMessage(archive).count == 402)
            let orphans = try await archive.read { db in
                try db.rows("SELECT count(*) FROM messages WHERE task_id IS NOT NULL AND task_id NOT IN (SELECT id FROM tasks)")
            }
            #expect(orphans[0].values[0].integer == 0)
            try await archive.close()
        }
    }

    @Test func cancellingDuringTheCopyLeavesNothing() async throws {
        try await withTemporaryStore { store, storeURL in
            for index in 0..<60_000 { store.storeMessage(label: "bulk", level: .info, message: "row \(index) with some words") }
            try await store.flush()
            let directory = storeURL.deletingLastPathComponent()
            let target = directory.appendingPathComponent("cancelled.lsarchive")
            let export = Task {
                try await store.export(to: target, options: ExportOptions(messages: MessageQuery(text: .plain("words"))))
            }
            try await Task.sleep(for: .milliseconds(20))
            export.cancel()
            let outcome = await export.result
            if case .success = outcome {
                // The machine was quick: then the archive is whole. Either way, no temporary file.
                #expect(FileManager.default.fileExists(atPath: target.path))
            } else {
                #expect(throws: CancellationError.self) { try outcome.get() }
                #expect(!FileManager.default.fileExists(atPath: target.path))
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(names.allSatisfy { $0 == "test.logstore" || $0 == "cancelled.lsarchive" })
        }
    }

    @Test func closeWaitsForAnArchiveExportInProgress() async throws {
        try await withTemporaryStoreURL { storeURL in
            _ = try await Self.fill(storeURL)
            let store = try await LogStore(storeURL: storeURL, options: [])
            let target = storeURL.deletingLastPathComponent().appendingPathComponent("during-close.lsarchive")
            let closing = Mutex<Task<Bool, any Error>?>(nil)
            let report = try await store.export(to: target) { progress in
                guard progress.phase == .compressing || progress.phase == .bodies else { return }
                closing.withLock { task in
                    if task == nil {
                        task = Task {
                            try await store.close()
                            // When close() returns, the export it waited for has put its file in place.
                            return FileManager.default.fileExists(atPath: target.path)
                        }
                    }
                }
            }
            let closed = try #require(closing.withLock { $0 })
            #expect(try await closed.value)
            #expect(report.taskCount == 6)
            let archive = try await LogStore(archiveURL: target)
            for task in try await Self.allTasks(archive) {
                let details = try #require(try await archive.task(id: task.id))
                #expect(!details.isResponseBodyRemoved)
            }
            try await archive.close()
            await #expect(throws: LogStoreError.closed) {
                try await store.export(to: target.deletingLastPathComponent().appendingPathComponent("after.lsarchive"))
            }
        }
    }

    @Test func aLongTargetNameStillGetsItsTemporaryFile() async throws {
        try await withTemporaryStore { store, storeURL in
            store.storeMessage(label: "a", level: .info, message: "one")
            try await store.flush()
            let name = String(repeating: "n", count: 240) + ".lsarchive"
            let target = storeURL.deletingLastPathComponent().appendingPathComponent(name)
            _ = try await store.export(to: target)
            #expect(FileManager.default.fileExists(atPath: target.path))
        }
    }

    @Test func refusesToOverwriteAndNeedsAnExistingDirectory() async throws {
        try await withTemporaryStore { store, storeURL in
            store.storeMessage(label: "a", level: .info, message: "one")
            try await store.flush()
            let directory = storeURL.deletingLastPathComponent()
            let existing = directory.appendingPathComponent("taken.lsarchive")
            try Data("keep me".utf8).write(to: existing)
            await #expect(throws: LogStoreError.fileAlreadyExists(existing)) { try await store.export(to: existing) }
            #expect(try Data(contentsOf: existing) == Data("keep me".utf8))
            let missing = directory.appendingPathComponent("nowhere/out.lsarchive")
            await #expect(throws: LogStoreError.fileDoesntExist(missing.deletingLastPathComponent())) {
                try await store.export(to: missing)
            }
            let made = directory.appendingPathComponent("made.lsarchive")
            _ = try await store.export(to: made)
            // Only the store, the one kept file and the archive: no temporary file is left.
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
                == ["test.logstore", "taken.lsarchive", "made.lsarchive"])
            let mode = try FileManager.default.attributesOfItem(atPath: made.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    @Test func anExportWhileLoggingIsAConsistentSnapshot() async throws {
        try await withTemporaryStore { store, storeURL in
            for index in 0..<2_000 { store.storeMessage(label: "steady", level: .info, message: "before \(index)") }
            try await store.flush()
            let logging = Task.detached {
                var index = 0
                while !Task.isCancelled {
                    store.storeMessage(label: "steady", level: .info, message: "during \(index)")
                    index += 1
                    if index % 500 == 0 { try? await Task.sleep(for: .milliseconds(1)) }
                }
            }
            let target = storeURL.deletingLastPathComponent().appendingPathComponent("live.lsarchive")
            let report = try await store.export(to: target, options: ExportOptions())
            logging.cancel()
            let archive = try await LogStore(archiveURL: target)
            let messages = try await allMessages(archive)
            // Every message up to the snapshot, none after: ids have no hole, and counts agree.
            #expect(messages.count >= 2_000)
            #expect(messages.count == report.messageCount)
            #expect(try await archive.info().messageCount == messages.count)
            #expect(messages.map(\.id) == Array(messages.first!.id...messages.last!.id))
            #expect(try await archive.count(MessageQuery()) == messages.count)
            try await archive.close()
        }
    }

    @Test func progressReachesTheEndAndTheExtractedFilesGoAtClose() async throws {
        try await withTemporaryStoreURL { storeURL in
            _ = try await Self.fill(storeURL)
            let reports = ProgressLog()
            let target = storeURL.deletingLastPathComponent().appendingPathComponent("progress.lsarchive")
            _ = try await withStore(at: storeURL) { store in
                try await store.export(to: target) { reports.append($0) }
            }
            let last = try #require(reports.all.last)
            #expect(last.phase == .finished)
            #expect(last.fractionCompleted == 1)
            #expect(reports.all.contains { $0.phase == .compressing })

            let archive = try await LogStore(archiveURL: target)
            // Where SQLite reads the extracted database from: a private directory of its own.
            let path = try await archive.read { db in try db.rows("PRAGMA database_list")[0].values[2].text ?? "" }
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            #expect(directory.path.contains("logstore-archives-"))
            let mode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
            #expect(mode == 0o700)
            try await archive.close()
            #expect(!FileManager.default.fileExists(atPath: directory.path))
        }
    }
}

/// Progress reports gathered from the export's thread.
final class ProgressLog: Sendable {
    private let reports = Mutex<[ExportProgress]>([])
    func append(_ report: ExportProgress) { reports.withLock { $0.append(report) } }
    var all: [ExportProgress] { reports.withLock { $0 } }
}
