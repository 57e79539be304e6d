import Foundation
import LogStore

/// `logstore demo <store>`: writes a realistic store to explore the other commands with.
enum DemoCommand: Command {
    static let spec = CommandSpec(
        name: "demo",
        summary: "Write a realistic demo store (100,000 messages in 3 sessions by default).",
        positionals: [.init(name: "store", help: "The store directory to create (or extend with --append).")],
        options: [
            .value("count", "n", "How many messages to write (default \(defaultCount))."),
            .value("sessions", "k", "How many sessions (process runs) to spread them over (default \(defaultSessions))."),
            .value("seed", "n", "Seed of the random data, to write the same store again (default: random)."),
            .flag("append", "Add to a store that already holds messages."),
        ],
        discussion: """
            The messages come from ~20 components of a fictional web shop (http, db, auth, cache,
            queue, payments, ...), mostly debug and info, with warnings, bursts of errors during
            incidents, metadata (request and user ids, nested values) and times spread over the
            last 3 hours.
            """)

    static let defaultCount = 100_000
    static let defaultSessions = 3

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let path = arguments.positionals[0]
        let count = try arguments.value("count").map { v throws(UsageError) in
            try ValueParsers.integer(v, option: "count", in: 0...100_000_000)
        } ?? defaultCount
        let sessions = try arguments.value("sessions").map { v throws(UsageError) in
            try ValueParsers.integer(v, option: "sessions", in: 1...1000)
        } ?? defaultSessions
        let seed = try arguments.value("seed").map { v throws(UsageError) in
            UInt64(try ValueParsers.integer(v, option: "seed", in: 0...Int.max))
        } ?? UInt64.random(in: 0...UInt64.max)
        let url = StoreAccess.url(path)

        if !arguments.flag("append"), let existing = try await existingMessageCount(url), existing > 0 {
            throw CommandFailure(
                description: "\(url.path) already holds \(Format.count(existing)) messages; "
                    + "pass --append to add to it, or choose a new path")
        }

        let writer = DemoWriter(url: url, count: count, sessions: sessions, seed: seed, end: console.environment.currentDate)
        let clock = ContinuousClock()
        let started = clock.now
        let tally = try await writer.write { session, written in
            console.line("session \(session + 1)/\(sessions): \(Format.plural(written, "message"))")
            console.flush()
        }
        let elapsed = clock.now - started
        let info = try await StoreAccess.withReadonlyStore(path) { try await $0.info() }
        for line in summary(tally, info: info, path: url.path, elapsed: elapsed, style: console.style) {
            console.line(line)
        }
    }

    /// Messages in the store at `url`, or `nil` when there is nothing there yet (no path, or an
    /// empty directory, which may become a store).
    private static func existingMessageCount(_ url: URL) async throws -> Int? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let contents = try? FileManager.default.contentsOfDirectory(atPath: url.path)
        if contents?.isEmpty == true { return nil }
        // Anything else must be a store we can read; if it is not, that error is the answer.
        return try await StoreAccess.withReadonlyStore(url.path) { try await $0.info().messageCount }
    }

    static func summary(
        _ tally: DemoWriter.Tally, info: LogStore.Info, path: String, elapsed: Duration, style: TextStyle
    ) -> [String] {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(tally.written) / seconds : 0
        let levels = LogStore.Level.allCases.compactMap { level -> String? in
            guard let count = tally.levels[level], count > 0 else { return nil }
            return "\(level.name) \(Format.count(count))"
        }
        let labels = tally.labels.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(8)
            .map { "\($0.key) \(Format.count($0.value))" }
        var rows: [(String, String)] = [
            ("Store", path),
            ("Written", "\(Format.plural(tally.written, "message")) in \(Format.plural(tally.sessions, "session"))"),
            ("Elapsed", "\(Format.decimal(seconds, places: 2)) s (\(Format.count(Int(rate))) messages/s)"),
            ("Size on disk", Format.bytes(info.totalStoreSize)),
            ("Levels", levels.joined(separator: ", ")),
            ("Top labels", labels.joined(separator: ", ")),
        ]
        if info.messageCount != tally.written {
            rows.insert(("In store", "\(Format.plural(info.messageCount, "message")), \(Format.plural(info.sessionCount, "session"))"), at: 2)
        }
        let quoted = Format.shellQuoted(path)
        return [style.bold("Demo store written.")] + Format.fields(rows) + [
            "", "Try next:",
            "  logstore info \(quoted)",
            "  logstore messages \(quoted) --level warning --limit 20",
            "  logstore sessions \(quoted)",
        ]
    }
}
