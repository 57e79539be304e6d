package import Foundation
package import LogStore

/// Writes the demo's messages and network tasks through the public API: each session opens
/// the store, logs its share with explicit increasing times, records its share of tasks between
/// those messages on the same timeline, and closes it (which commits everything).
///
/// `logstore demo` is its one user; the same seed writes the same messages and tasks.
package struct DemoWriter {
    /// The store directory, created if missing.
    package let url: URL
    /// How many messages to write in all.
    package let count: Int
    /// How many sessions (process runs) to spread them over.
    package let sessions: Int
    /// The seed of every random choice.
    package let seed: UInt64
    /// The time of the newest message: the timeline ends here.
    package let end: Date
    /// How many network tasks to write in all.
    package var tasks = 0

    /// A writer of `count` messages in `sessions` sessions up to `end`, and no tasks until
    /// ``tasks`` says how many.
    package init(url: URL, count: Int, sessions: Int, seed: UInt64, end: Date) {
        self.url = url
        self.count = count
        self.sessions = sessions
        self.seed = seed
        self.end = end
    }

    /// What was written, for the summary.
    package struct Tally {
        /// Messages written.
        package var written = 0
        /// Sessions written.
        package var sessions = 0
        /// Messages per level.
        package var levels: [LogStore.Level: Int] = [:]
        /// Messages per label.
        package var labels: [String: Int] = [:]
        /// Network tasks written, of every state.
        package var tasks = 0
        /// Tasks that failed (an error, or a 4xx or 5xx status).
        package var failedTasks = 0
        /// Tasks still running when their session closed.
        package var pendingTasks = 0
        /// Tasks recorded through a `NetworkLogger` (the others with `storeRequest`).
        package var loggedTasks = 0
        /// The hosts the tasks went to.
        package var hosts: Set<String> = []
        /// A task sent with credentials, to show how the store redacted them.
        package var credentialedTaskID: UUID?
        /// How many credential headers it has.
        var credentialCount = 0
        /// A task whose response is an image.
        package var imageTaskID: UUID?
    }

    /// The timeline the messages are spread over.
    static let span: TimeInterval = 3 * 3600

    /// How far ``write(progress:)`` has got.
    package struct Progress {
        /// The session being written (0-based).
        package var session: Int
        /// Messages written so far, in all sessions.
        package var messages: Int
        /// Tasks written so far, in all sessions.
        package var tasks: Int
        /// Set once the session is closed; then the two counts below are its own.
        package var sessionFinished: Bool
        /// The session's messages so far.
        package var sessionMessages: Int
        /// The session's tasks so far.
        package var sessionTasks: Int
    }

    /// Messages between two reports within a session: a few hundred reports for the default
    /// count, and never one per message.
    var reportInterval: Int { max(1_000, count / 200) }

    /// Writes every session; `progress` is called every ``reportInterval`` messages and after
    /// each session is closed.
    package func write(progress: (Progress) -> Void) async throws -> Tally {
        var generator = DemoGenerator(seed: seed, count: count, sessions: sessions, end: end, span: Self.span)
        var network = DemoNetworkGenerator(seed: seed)
        var configuration = LogStore.Configuration()
        // Demo data must be complete: slow down rather than drop.
        configuration.overflowPolicy = .waitForSpace
        configuration.appVersion = "demo \(LogStore.Version.library)"
        // The default redaction, as a new user gets it: it must hide the demo's tokens, passwords
        // and pre-signed URLs' signatures without a list of its own.
        var tally = Tally()
        var levelCounts = [Int](repeating: 0, count: LogStore.Level.allCases.count)
        var labelCounts = [Int](repeating: 0, count: DemoLabel.allCases.count)
        let labelIndex = Dictionary(uniqueKeysWithValues: DemoLabel.allCases.enumerated().map { ($1, $0) })
        // The time of the last message or task written: every later one comes after it.
        var lastTime: Date?

        for session in 0..<sessions {
            let share = count / sessions + (session < count % sessions ? 1 : 0)
            let taskShare = tasks / sessions + (session < tasks % sessions ? 1 : 0)
            // A couple of tasks are still running when the last session closes.
            let pendingFrom = session == sessions - 1 && tasks >= 20 ? taskShare - 2 : taskShare
            // Sessions take turns as two authors of the change history, so `logstore history`
            // has something to show: each is behind by what the other wrote.
            configuration.history = HistoryConfiguration(
                currentAuthor: session % 2 == 0 ? "api" : "worker", allAuthors: ["api", "worker"])
            // The session starts just before its first message (in the restart pause before it),
            // so that it holds every message and task it logs: the store dates a session with
            // its clock, which reads the demo's timeline here, not the wall clock.
            var first = share > 0 ? generator.next(session: session) : nil
            let sessionStart = first.map { $0.createdAt.addingTimeInterval(-generator.restartPause / 2) }
                ?? (lastTime ?? end.addingTimeInterval(-Self.span)).addingTimeInterval(generator.restartPause / 2)
            configuration.timeSource = LogStore.TimeSource(now: { sessionStart }, sleep: { try await Task.sleep(for: $0) })
            let store = try await LogStore(storeURL: url, options: [.create], configuration: configuration)
            var recorder = DemoNetworkRecorder(store: store)
            var tasksDone = 0
            func recordTasks(_ number: Int, after lower: Date, before upper: Date, failing: Bool = false) {
                for step in 0..<number {
                    let time = lower.addingTimeInterval(upper.timeIntervalSince(lower) * Double(step + 1) / Double(number + 1))
                    let task = tasksDone >= pendingFrom
                        ? network.pending(at: time, large: tasksDone == pendingFrom)
                        : network.next(at: time, duringOutage: failing)
                    recorder.record(task)
                    tally.count(task)
                    tasksDone += 1
                }
                if number > 0 { lastTime = upper }
            }

            for position in 0..<share {
                let message: DemoMessage
                if let taken = first {
                    message = taken
                    first = nil
                } else {
                    message = generator.next(session: session)
                }
                // The tasks due at this position go between the previous message and this one,
                // within the session.
                var due = 0
                while tasksDone + due < taskShare, (tasksDone + due) * share / taskShare == position { due += 1 }
                if due > 0 {
                    let lower = max(lastTime ?? .distantPast, sessionStart, message.createdAt.addingTimeInterval(-1))
                    recordTasks(due, after: lower, before: message.createdAt, failing: message.isOutage)
                }
                let source = message.label.source
                store.storeMessage(
                    createdAt: message.createdAt, label: message.label.rawValue, level: message.level,
                    message: message.line.text, metadata: message.line.metadata,
                    file: source.file, function: message.line.function ?? source.function,
                    line: UInt(source.line + Int(message.level.rawValue) * 7))
                levelCounts[Int(message.level.rawValue)] += 1
                labelCounts[labelIndex[message.label] ?? 0] += 1
                lastTime = message.createdAt
                if (position + 1) % reportInterval == 0 {
                    progress(Progress(
                        session: session, messages: tally.written + position + 1, tasks: tally.tasks,
                        sessionFinished: false, sessionMessages: position + 1, sessionTasks: tasksDone))
                }
            }
            if tasksDone < taskShare {
                // A session without messages: spread its tasks over its part of what is left.
                let lower = max(lastTime ?? sessionStart, sessionStart)
                let upper = lower.addingTimeInterval(end.timeIntervalSince(lower) / Double(sessions - session))
                recordTasks(taskShare - tasksDone, after: lower, before: upper)
            }
            // Flush before closing: close() alone can close the connection while a large backlog
            // is still queued (reported to the library owners), failing with SQLite error 21.
            try await store.flush()
            try await store.close()
            tally.written += share
            tally.sessions += 1
            progress(Progress(
                session: session, messages: tally.written, tasks: tally.tasks,
                sessionFinished: true, sessionMessages: share, sessionTasks: taskShare))
        }
        for level in LogStore.Level.allCases { tally.levels[level] = levelCounts[Int(level.rawValue)] }
        for (index, label) in DemoLabel.allCases.enumerated() where labelCounts[index] > 0 {
            tally.labels[label.rawValue] = labelCounts[index]
        }
        return tally
    }
}

extension DemoWriter.Tally {
    mutating func count(_ task: DemoTask) {
        tasks += 1
        if task.isPending {
            pendingTasks += 1
        } else if task.isFailure {
            failedTasks += 1
        }
        if task.usesLogger { loggedTasks += 1 }
        if let host = task.request.url?.host { hosts.insert(host) }
        guard task.usesLogger, !task.isPending, !task.isFailure else { return }
        // The first task with the most credentials in its headers and a JSON response.
        let credentials = ["Authorization", "Cookie"].filter { task.request.value(forHTTPHeaderField: $0) != nil }.count
        if credentials > credentialCount, task.response?.contentType == "application/json", task.responseBody != nil {
            credentialedTaskID = task.id
            credentialCount = credentials
        }
        if imageTaskID == nil, task.response?.contentType?.hasPrefix("image/") == true, task.responseBody != nil {
            imageTaskID = task.id
        }
    }
}
