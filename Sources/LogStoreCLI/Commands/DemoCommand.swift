import Foundation
import LogStore
import LogStoreDemo

/// `logstore demo <store>`: writes a realistic store to explore the other commands with.
enum DemoCommand: Command {
    static let spec = CommandSpec(
        name: "demo",
        summary: "Write a realistic demo store (100,000 messages and 2,000 network tasks in 3 sessions by default).",
        positionals: [.init(name: "store", help: "The store directory to create (or extend with --append).")],
        options: [count, tasks, sessions, seed, append],
        discussion: """
            The messages come from ~20 components of a fictional web shop (http, db, auth, cache,
            queue, payments, ...), mostly debug and info, with warnings, short bursts of errors,
            metadata (request and user ids, nested values) and times spread over the last 3
            hours, each session holding what it logged. About halfway through, an outage worth
            finding: for five minutes the database is gone, errors pour in and network calls
            fail ('logstore summary' shows when, 'logstore messages --level error' what).

            The network tasks are the shop's calls to its services and to third parties (catalog,
            search, payments, identity, CDN images, CSV and JSON exports, uploads), on the same
            timeline: JSON bodies that repeat (deduplicated by the store), exports large enough to
            be stored as files, PNG, JPEG and GIF images, timeouts and 4xx/5xx answers, progress,
            metrics (DNS, connect, TLS, protocol, addresses), and credentials in headers, tokens
            and signed URLs that the store redacts before anything reaches the disk.

            The default store (about 40 MB) fits the default size limit of an app that opens it
            (256 MB); past it, the summary says so, since that app would trim it.

            Examples:
              logstore demo demo.logstore
              logstore demo demo.logstore --count 20000 --sessions 2 --seed 7
              logstore demo demo.logstore --append --count 5000 --tasks 0
            """)

    static let count = ValueOption("count", "n", "How many messages to write (default \(defaultCount)).")
    static let tasks = ValueOption(
        "tasks", "n", "How many network tasks to write among them (default: one per \(messagesPerTask) messages; 0 for none).")
    static let sessions = ValueOption(
        "sessions", "k", "How many sessions (process runs) to spread them over (default \(defaultSessions)).")
    static let seed = ValueOption("seed", "n", "Seed of the random data, to write the same store again (default: random).")
    static let append = FlagOption("append", "Add to a store that already holds messages or tasks.")

    static let defaultCount = 100_000
    static let defaultSessions = 3
    /// The default task count is the message count divided by this.
    static let messagesPerTask = 50

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let path = arguments.positionals[0]
        let count = try arguments.value(Self.count).map { v throws(UsageError) in
            try ValueParsers.integer(v, option: Self.count.name, in: 0...100_000_000)
        } ?? defaultCount
        let sessions = try arguments.value(Self.sessions).map { v throws(UsageError) in
            try ValueParsers.integer(v, option: Self.sessions.name, in: 1...1000)
        } ?? defaultSessions
        let seed = try arguments.value(Self.seed).map { v throws(UsageError) in
            UInt64(try ValueParsers.integer(v, option: Self.seed.name, in: 0...Int.max))
        } ?? UInt64.random(in: 0...UInt64.max)
        let tasks = try arguments.value(Self.tasks).map { v throws(UsageError) in
            try ValueParsers.integer(v, option: Self.tasks.name, in: 0...10_000_000)
        } ?? count / messagesPerTask
        let url = StoreAccess.url(path)

        if !arguments.flag(append), let existing = try await existingContents(url), existing.messages + existing.tasks > 0 {
            let what = existing.tasks > 0 && existing.messages == 0
                ? Format.plural(existing.tasks, "task") : Format.plural(existing.messages, "message")
            throw CommandFailure(
                description: "\(url.path) already holds \(what); pass --append to add to it, or choose a new path")
        }

        var writer = DemoWriter(url: url, count: count, sessions: sessions, seed: seed, end: console.environment.currentDate)
        writer.tasks = tasks
        let clock = ContinuousClock()
        let started = clock.now
        // On a terminal a bar replaces the per-session lines; piped, the lines stay (a log of
        // the run).
        let bar = console.environment.progressOutput.map { ProgressBar(output: $0) }
        let total = Int64(count + tasks)
        let tally: DemoWriter.Tally
        do {
            tally = try await writer.write { progress in
                if let bar {
                    let done = Int64(progress.messages + progress.tasks)
                    bar.draw(fraction: total > 0 ? Double(done) / Double(total) : 1, completed: done, total: total,
                             unit: "messages and tasks", label: "session \(progress.session + 1)/\(sessions)")
                    return
                }
                guard progress.sessionFinished else { return }
                var line = "session \(progress.session + 1)/\(sessions): \(Format.plural(progress.sessionMessages, "message"))"
                if progress.sessionTasks > 0 { line += ", \(Format.plural(progress.sessionTasks, "network task"))" }
                console.line(line)
                console.flush()
            }
        } catch {
            bar?.finish()
            throw error
        }
        bar?.finish()
        let elapsed = clock.now - started
        let (info, stored) = try await StoreAccess.withReadonlyStore(path) { store in
            (try await store.info(), try await StoredExamples(store, tally: tally))
        }
        for line in summary(tally, info: info, stored: stored, path: url.path, elapsed: elapsed, style: console.style) {
            console.line(line)
        }
    }

    /// What the summary reads back from the store: its blobs, and how it stored a task sent
    /// with credentials.
    struct StoredExamples {
        var blobs: [BlobSummary] = []
        /// The headers of the credentialed task as stored, with their names.
        var redactedHeaders: [(String, String)] = []

        init(_ store: LogStore, tally: DemoWriter.Tally) async throws {
            let info = try await store.info()
            if info.blobCount > 0 { blobs = try await store.blobs(limit: info.blobCount) }
            if let id = tally.credentialedTaskID, let headers = try await store.task(id: id)?.request?.headers {
                redactedHeaders = headers.filter { $0.value == Redaction.placeholder }.sorted { $0.key < $1.key }
            }
        }
    }

    /// Messages and tasks in the store at `url`, or `nil` when there is nothing there yet (no
    /// path, or an empty directory, which may become a store).
    private static func existingContents(_ url: URL) async throws -> (messages: Int, tasks: Int)? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let contents = try? FileManager.default.contentsOfDirectory(atPath: url.path)
        if contents?.isEmpty == true { return nil }
        // Anything else must be a store we can read; if it is not, that error is the answer.
        let info = try await StoreAccess.withReadonlyStore(url.path) { try await $0.info() }
        return (info.messageCount, info.taskCount)
    }

    static func summary(
        _ tally: DemoWriter.Tally, info: LogStore.Info, stored: StoredExamples, path: String, elapsed: Duration,
        style: TextStyle
    ) -> [String] {
        let seconds = elapsed / .seconds(1)
        let rate = seconds > 0 ? Double(tally.written) / seconds : 0
        var rates = ["\(Format.count(Int(rate))) messages/s"]
        if tally.tasks > 0, seconds > 0 {
            let tasks = "\(Format.count(Int(Double(tally.tasks) / seconds))) tasks/s"
            if tally.written == 0 { rates = [tasks] } else { rates.append(tasks) }
        }
        let levels = LogStore.Level.allCases.compactMap { level -> String? in
            guard let count = tally.levels[level], count > 0 else { return nil }
            return "\(level.name) \(Format.count(count))"
        }
        let labels = tally.labels.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(8)
            .map { "\($0.key) \(Format.count($0.value))" }
        var rows: [(String, String)] = [
            ("Store", path),
            ("Written", "\(Format.plural(tally.written, "message")) in \(Format.plural(tally.sessions, "session"))"),
            ("Elapsed", "\(Format.decimal(seconds, places: 2)) s (\(rates.joined(separator: ", ")))"),
            ("Size on disk", Format.bytes(info.totalStoreSize)),
            ("Levels", levels.joined(separator: ", ")),
            ("Top labels", labels.joined(separator: ", ")),
        ]
        if tally.tasks > 0 {
            rows.insert(contentsOf: taskRows(tally, info: info, stored: stored), at: 2)
        }
        if info.messageCount != tally.written {
            rows.insert(("In store", "\(Format.plural(info.messageCount, "message")), \(Format.plural(info.sessionCount, "session"))"), at: 2)
        }
        let quoted = Format.shellQuoted(path)
        var note: [String] = []
        let limits = LogStore.Configuration()
        let threshold = Int64(Double(limits.sizeLimit) * LogStore.Configuration.sizeSweepThresholdRatio)
        if info.totalStoreSize >= threshold {
            // An app opening this store with the default limits would trim it at once.
            note = ["", style.yellow(
                "Note: \(Format.bytes(info.totalStoreSize)) is over what the default size limit "
                    + "(\(Format.bytes(limits.sizeLimit)), trimmed from \(Format.bytes(threshold))) keeps: an app opening it "
                    + "with the defaults trims the oldest data. Open it with a larger Configuration.sizeLimit, or write fewer messages.")]
        }
        return [style.bold("Demo store written.")] + Format.fields(rows) + note + [
            "", "Try next:",
            "  logstore info \(quoted)",
            "  logstore summary \(quoted)",
            "  logstore messages \(quoted) --level error --limit 20",
            "  logstore messages \(quoted) --level warning --limit 20",
            "  logstore sessions \(quoted)",
        ] + (tally.tasks == 0 ? [] : [
            "  logstore tasks \(quoted) --status 5xx --limit 20",
            "  logstore task \(quoted) --latest --errors",
            "  logstore task \(quoted) \(tally.credentialedTaskID?.uuidString ?? "<task-id>")",
            tally.imageTaskID.map { "  logstore task \(quoted) \($0.uuidString)" },
            "  logstore blobs \(quoted) --limit 10",
        ].compactMap { $0 })
    }

    /// The summary's lines about network tasks and their bodies.
    static func taskRows(_ tally: DemoWriter.Tally, info: LogStore.Info, stored: StoredExamples) -> [(String, String)] {
        let succeeded = tally.tasks - tally.failedTasks - tally.pendingTasks
        var states = "\(Format.count(succeeded)) succeeded, \(Format.count(tally.failedTasks)) failed"
        if tally.pendingTasks > 0 { states += ", \(Format.count(tally.pendingTasks)) pending" }
        var rows: [(String, String)] = [
            ("Network tasks", "\(Format.plural(tally.tasks, "task")) to \(Format.plural(tally.hosts.count, "host")): \(states)\n"
                + "\(Format.count(tally.loggedTasks)) through NetworkLogger, \(Format.count(tally.tasks - tally.loggedTasks)) with storeRequest"),
        ]
        let files = stored.blobs.filter { $0.storage == .file }.count
        let links = stored.blobs.reduce(0) { $0 + $1.linkCount }
        var blobs = "\(Format.plural(info.blobCount, "blob")) (\(Format.count(files)) in files), "
            + "\(Format.bytes(info.blobsSize)) stored of \(Format.bytes(info.blobsDecompressedSize))"
        if info.blobsSize > 0 {
            blobs += " (\(Format.decimal(Double(info.blobsDecompressedSize) / Double(info.blobsSize), places: 1))× smaller)"
        }
        let referenced = stored.blobs.reduce(Int64(0)) { $0 + Int64($1.linkCount) * $1.decompressedSize }
        blobs += "\n\(Format.count(links)) bodies of tasks (\(Format.bytes(referenced))) share them: deduplicated by SHA-1"
        rows.append(("Blobs", blobs))
        if !stored.redactedHeaders.isEmpty, let id = tally.credentialedTaskID {
            let headers = stored.redactedHeaders.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
            rows.append(("Redacted", "\(headers) (as stored for task \(id.uuidString))"))
        }
        return rows
    }
}
