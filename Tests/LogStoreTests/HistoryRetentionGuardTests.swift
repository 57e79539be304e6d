import Foundation
import LogStore
import Testing

/// With ``HistoryConfiguration/retentionGuard``, the age sweep keeps the messages and tasks a
/// required author has not consumed yet (from the lowest such id on); without it, or for the
/// size limit, they go. The request is the author's, recorded in the store: every process's
/// age sweep follows it, the `logstore` tool's and those opened without a history configuration
/// included, until the author reopens without it or retires.
@Suite("History retention guard")
struct HistoryRetentionGuardTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let old = now.addingTimeInterval(-2 * 3_600)
    static let url = URL(string: "https://api.example.com/orders")!

    /// A store whose age limit is an hour at ``now``; as `author` (asking for the guard or not,
    /// a batch author when `isBatch`), or with no history configuration when `author` is nil.
    static func configuration(
        _ author: String?, retentionGuard: Bool = true, isBatch: Bool = false, sizeLimit: Int64? = nil
    ) -> LogStore.Configuration {
        var configuration = LogStore.Configuration()
        configuration.overflowPolicy = .waitForSpace
        configuration.maxAge = .seconds(3_600)
        if let sizeLimit { configuration.sizeLimit = sizeLimit }
        configuration.timeSource = LogStore.TimeSource(now: { now }, sleep: { try await Task.sleep(for: $0) })
        configuration.history = author.map {
            HistoryConfiguration(currentAuthor: $0, batchAuthors: isBatch ? [$0] : [], retentionGuard: retentionGuard)
        }
        return configuration
    }

    static func logOld(_ store: LogStore, _ label: String, count: Int, padding: Int = 0, at date: Date = old) {
        let text = String(repeating: "p", count: padding)
        for i in 0..<count { store.storeMessage(createdAt: date, label: label, level: .info, message: "\(label) \(i)\(text)") }
    }

    static func logOldRequest(_ store: LogStore, at date: Date = old) {
        store.storeRequest(
            NetworkRequest(url: Self.url), response: NetworkResponse(url: Self.url, statusCode: 200), error: nil,
            data: nil, createdAt: date)
    }

    /// What is left: messages per label (the tasks' own aside) and the task count.
    static func contents(_ store: LogStore) async throws -> (labels: [String: Int], tasks: Int) {
        let messages = try await allMessages(store)
        let labels = Dictionary(grouping: messages.filter { $0.label != "network" }, by: \.label).mapValues(\.count)
        return (labels, try await store.info().taskCount)
    }

    /// The server logs old rows before the viewer registers (its cursor starts past them: they
    /// are not its to consume; the server's configuration does not name it) and after
    /// (unconsumed), then sweeps. The viewer asks for no guard: the server's request decides.
    static func sweepWithAViewer(
        _ server: LogStore.Configuration, padding: Int = 0
    ) async throws -> (labels: [String: Int], tasks: Int, removedMessages: Int) {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create], configuration: server)
            Self.logOld(store, "before", count: 10, padding: padding)
            try await store.flush()
            let viewer = try await LogStore(
                storeURL: url, options: [.create], configuration: Self.configuration("viewer", retentionGuard: false))
            do {
                Self.logOld(store, "after", count: 10, padding: padding)
                Self.logOldRequest(store)
                try await store.flush()
                // Opened without `.sweep`: this is the only sweep.
                let removedMessages = try await store.sweep().removedMessages
                let left = try await Self.contents(store)
                try await viewer.close()
                try await store.close()
                return (left.labels, left.tasks, removedMessages)
            } catch {
                try? await viewer.close()
                try? await store.close()
                throw error
            }
        }
    }

    @Test func theAgeSweepKeepsWhatAConsumerHasNotSeen() async throws {
        let result = try await Self.sweepWithAViewer(Self.configuration("server"))
        // What the viewer registered after is all it could have missed; it stays however old.
        #expect(result.labels == ["after": 10])
        #expect(result.tasks == 1)
        #expect(result.removedMessages == 10)
    }

    @Test func withoutTheGuardTheAgeSweepDeletesWhatIsOld() async throws {
        let result = try await Self.sweepWithAViewer(Self.configuration("server", retentionGuard: false))
        #expect(result.labels.isEmpty)
        #expect(result.tasks == 0)
    }

    @Test func theSizeSweepIgnoresTheGuard() async throws {
        // Old rows kept by the guard from the age sweep, then trimmed for size all the same.
        let result = try await Self.sweepWithAViewer(Self.configuration("server", sizeLimit: 200_000), padding: 10_000)
        #expect(result.labels["before"] == nil)
        #expect((result.labels["after"] ?? 0) < 10)
    }

    // MARK: The request, recorded in the store

    /// The server (asking for the guard unless told otherwise) logs old rows before the viewer
    /// first opens, then old rows and a task the viewer has not consumed; then both have closed.
    /// Whatever asks for the guard now is only what their rows say.
    static func makeStoreWithAnUnconsumedPart(
        at url: URL, server: LogStore.Configuration = configuration("server"), date: Date = old
    ) async throws {
        try await withStore(at: url, configuration: server) { store in
            Self.logOld(store, "before", count: 10, at: date)
            try await store.flush()
            try await withStore(at: url, configuration: Self.configuration("viewer", retentionGuard: false)) { _ in }
            Self.logOld(store, "after", count: 10, at: date)
            Self.logOldRequest(store, at: date)
            try await store.flush()
        }
    }

    /// Opens the store with `configuration` (in this process: a process of its own would see
    /// the same rows), sweeps once, and returns what is left.
    static func sweep(
        _ url: URL, with configuration: LogStore.Configuration
    ) async throws -> (labels: [String: Int], tasks: Int) {
        try await withStore(at: url, options: [], configuration: configuration) { store in
            _ = try await store.sweep()
            return try await Self.contents(store)
        }
    }

    static func status(_ url: URL) async throws -> HistoryStatus {
        try await withStore(at: url, options: [.readonly]) { try await $0.historyStatus() }
    }

    /// Sweeping processes that never asked for the guard: no history configuration (a
    /// maintenance tool), the viewer itself (`retentionGuard: false`), an author the store has
    /// not seen yet. (Not `Sweeper`: that is the library's own type.)
    enum UnaskingSweeper: String, CaseIterable, Sendable {
        case unconfigured, viewer, newAuthor

        var configuration: LogStore.Configuration {
            switch self {
            case .unconfigured: HistoryRetentionGuardTests.configuration(nil)
            case .viewer: HistoryRetentionGuardTests.configuration("viewer", retentionGuard: false)
            case .newAuthor: HistoryRetentionGuardTests.configuration("nightly", retentionGuard: false)
            }
        }
    }

    @Test(arguments: UnaskingSweeper.allCases)
    func everyAgeSweepKeepsWhatTheGuardingAuthorAskedFor(_ sweeper: UnaskingSweeper) async throws {
        try await withTemporaryStoreURL { url in
            try await Self.makeStoreWithAnUnconsumedPart(at: url)
            let status = try await Self.status(url)
            #expect(status.retentionGuardIsOn)
            #expect(status.retentionGuardAuthors.map(\.name) == ["server"])
            #expect(status.authors.first { $0.name == "viewer" }?.asksForRetentionGuard == false)

            let left = try await Self.sweep(url, with: sweeper.configuration)
            // The server's request, not the sweeping process's configuration, decided.
            #expect(left.labels == ["after": 10])
            #expect(left.tasks == 1)
        }
    }

    @Test func theGuardingAuthorReopeningWithoutItEndsTheRequest() async throws {
        try await withTemporaryStoreURL { url in
            try await Self.makeStoreWithAnUnconsumedPart(at: url)
            try await withStore(at: url, options: [], configuration: Self.configuration("server", retentionGuard: false)) { _ in }
            let status = try await Self.status(url)
            #expect(!status.retentionGuardIsOn)
            #expect(status.authors.allSatisfy { !$0.asksForRetentionGuard })

            let left = try await Self.sweep(url, with: Self.configuration(nil))
            #expect(left.labels.isEmpty)
            #expect(left.tasks == 0)
        }
    }

    @Test func reopeningWithTheGuardAsksAgain() async throws {
        try await withTemporaryStoreURL { url in
            try await Self.makeStoreWithAnUnconsumedPart(at: url, server: Self.configuration("server", retentionGuard: false))
            #expect(try await !Self.status(url).retentionGuardIsOn)
            try await withStore(at: url, options: [], configuration: Self.configuration("server")) { _ in }
            #expect(try await Self.status(url).retentionGuardIsOn)
            let left = try await Self.sweep(url, with: Self.configuration(nil))
            #expect(left.labels == ["after": 10])
        }
    }

    @Test func retiringTheGuardingAuthorEndsTheRequest() async throws {
        try await withTemporaryStoreURL { url in
            try await Self.makeStoreWithAnUnconsumedPart(at: url)
            let left = try await withStore(at: url, options: [], configuration: Self.configuration(nil)) { store in
                try await store.retireHistoryAuthor("server")
                let server = try #require(try await store.historyStatus().authors.first { $0.name == "server" })
                #expect(!server.asksForRetentionGuard && server.retired != nil)
                _ = try await store.sweep()
                return try await Self.contents(store)
            }
            // The viewer had not consumed "after" either, but asked for no guard.
            #expect(left.labels.isEmpty)
            #expect(left.tasks == 0)
        }
    }

    @Test func aBatchAuthorCannotAskForTheGuard() async throws {
        try await withTemporaryStoreURL { url in
            // Refused before the store is touched: a request that would be recorded and do nothing.
            do {
                let store = try await LogStore(
                    storeURL: url, options: [.create], configuration: Self.configuration("nightly", isBatch: true))
                try await store.close()
                Issue.record("a batch author asking for the guard opened the store")
            } catch let error as LogStoreError {
                #expect(error == .invalidArgument(""), "\(error)")
                #expect(error.description.contains("\"nightly\" is a batch author"), "\(error)")
                #expect(error.description.contains("retention guard"), "\(error)")
            }
            #expect(!FileManager.default.fileExists(atPath: url.path))
            // The same batch author without the request opens; a consuming one may ask.
            try await withStore(at: url, configuration: Self.configuration("nightly", retentionGuard: false, isBatch: true)) { _ in }
            try await withStore(at: url, configuration: Self.configuration("server")) { _ in }
            #expect(try await Self.status(url).retentionGuardAuthors.map(\.name) == ["server"])
        }
    }

    // MARK: What a sweep reports

    @Test func theSweepReportSaysWhatTheGuardKeptAndWhoAsks() async throws {
        try await withTemporaryStoreURL { url in
            try await Self.makeStoreWithAnUnconsumedPart(at: url)
            let report = try await withStore(at: url, options: [], configuration: Self.configuration(nil)) {
                try await $0.sweep()
            }
            // "after" and the request's task: old, unconsumed by the viewer, kept.
            #expect(report.removedMessages == 10)
            #expect(report.guardedMessages == 10)
            #expect(report.guardedTasks == 1)
            #expect(report.retentionGuardAuthors == ["server"])
            // Kept in the manifest too (`Info.lastSweep`), and read back.
            let last = try await withStore(at: url, options: [.readonly]) { try await $0.info().lastSweep }
            #expect(last?.guardedMessages == 10)
            #expect(last?.retentionGuardAuthors == ["server"])
        }
    }

    @Test func withoutTheGuardTheReportKeepsNothing() async throws {
        try await withTemporaryStoreURL { url in
            try await Self.makeStoreWithAnUnconsumedPart(at: url, server: Self.configuration("server", retentionGuard: false))
            let report = try await withStore(at: url, options: [], configuration: Self.configuration(nil)) {
                try await $0.sweep()
            }
            #expect(report.removedMessages == 20)
            #expect(report.guardedMessages == 0)
            #expect(report.guardedTasks == 0)
            #expect(report.retentionGuardAuthors.isEmpty)
        }
    }

    @Test func theProgressTotalsLeaveOutWhatTheGuardKeeps() async throws {
        try await withTemporaryStoreURL { url in
            try await Self.makeStoreWithAnUnconsumedPart(at: url)
            let seen = Recorder<[SweepProgress]>([])
            try await withStore(at: url, options: [], configuration: Self.configuration(nil)) { store in
                _ = try await withinTimeLimit(seconds: 30) {
                    try await store.sweep { progress in seen.update { $0.append(progress) } }
                }
            }
            let reports = seen.current
            // The 10 "before" messages go; the 10 "after" ones and the task's message stay.
            let messages = reports.filter { $0.phase == .removingOldMessages }
            #expect(messages.first?.total == 10, "\(messages)")
            #expect(messages.last?.completed == 10, "\(messages)")
            // The only old task is kept: its phase has nothing to do and is not reported.
            #expect(!reports.contains { $0.phase == .removingOldTasks }, "\(reports.map(\.phase))")
        }
    }

    // MARK: The command-line tool

    /// Runs the `logstore` executable built beside the tests, in a process of its own on a
    /// thread of its own, killed after a minute (scaled) if it has not exited.
    static func runTool(_ arguments: String...) async throws -> ProcessOutput {
        let tool = KilledWriterTests.tool
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "missing \(tool.path)")
        return try await onOwnThread { try runProcess(tool.path, arguments, killedAfter: 60) }
    }

    @Test func theToolsSweepHonoursTheRequest() async throws {
        try await withTemporaryStoreURL { url in
            // The tool runs on the real clock: rows two days old, swept with a one-day limit.
            var server = Self.configuration("server")
            server.timeSource = .system
            let twoDaysAgo = Date().addingTimeInterval(-2 * 86_400)
            try await Self.makeStoreWithAnUnconsumedPart(at: url, server: server, date: twoDaysAgo)

            let guarded = try await Self.runTool("sweep", url.path, "--max-age", "1d", "--json")
            #expect(guarded.status == 0, "\(guarded.standardError)")
            #expect(guarded.standardOutput.contains("\"removedMessages\":10"), "\(guarded.standardOutput)")
            #expect(guarded.standardOutput.contains("\"guardedMessages\":10"), "\(guarded.standardOutput)")
            #expect(guarded.standardOutput.contains("\"guardedTasks\":1"), "\(guarded.standardOutput)")
            #expect(guarded.standardOutput.contains("\"retentionGuardAuthors\":[\"server\"]"), "\(guarded.standardOutput)")
            let kept = try await withStore(at: url, options: [.readonly]) { try await Self.contents($0) }
            #expect(kept.labels == ["after": 10])
            #expect(kept.tasks == 1)
            // Its text says so too.
            let text = try await Self.runTool("sweep", url.path, "--max-age", "1d")
            #expect(text.status == 0, "\(text.standardError)")
            let line = text.standardOutput.split(separator: "\n").first { $0.hasPrefix("Kept by guard:") }
            #expect(line?.hasSuffix(
                " 10 messages, 1 task older than the age limit, not yet consumed (retention guard asked by server)") == true,
                "\(text.standardOutput)")

            // Withdrawn, the same command deletes what is old.
            server.history?.retentionGuard = false
            try await withStore(at: url, options: [], configuration: server) { _ in }
            let unguarded = try await Self.runTool("sweep", url.path, "--max-age", "1d", "--json")
            #expect(unguarded.status == 0, "\(unguarded.standardError)")
            #expect(unguarded.standardOutput.contains("\"retentionGuardAuthors\":[]"), "\(unguarded.standardOutput)")
            let left = try await withStore(at: url, options: [.readonly]) { try await Self.contents($0) }
            #expect(left.labels.isEmpty)
            #expect(left.tasks == 0)
        }
    }
}
