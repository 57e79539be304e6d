import Foundation
import LogStore

/// Writes the demo's messages through the public API: each session opens the store, logs its
/// share with explicit increasing times, and closes it (which commits everything).
struct DemoWriter {
    let url: URL
    let count: Int
    let sessions: Int
    let seed: UInt64
    let end: Date

    /// What was written, for the summary.
    struct Tally {
        var written = 0
        var sessions = 0
        var levels: [LogStore.Level: Int] = [:]
        var labels: [String: Int] = [:]
    }

    /// Writes every session; `progress` is called after each with its index and message count.
    func write(progress: (Int, Int) -> Void) async throws -> Tally {
        var generator = DemoGenerator(seed: seed, count: count, sessions: sessions, end: end)
        var configuration = LogStore.Configuration()
        // Demo data must be complete: slow down rather than drop.
        configuration.overflowPolicy = .waitForSpace
        configuration.appVersion = "demo \(LogStore.Version.library)"
        var tally = Tally()
        var levelCounts = [Int](repeating: 0, count: LogStore.Level.allCases.count)
        var labelCounts = [Int](repeating: 0, count: DemoLabel.allCases.count)
        let labelIndex = Dictionary(uniqueKeysWithValues: DemoLabel.allCases.enumerated().map { ($1, $0) })

        for session in 0..<sessions {
            let share = count / sessions + (session < count % sessions ? 1 : 0)
            let store = try await LogStore(storeURL: url, options: [.create], configuration: configuration)
            for _ in 0..<share {
                let message = generator.next(session: session)
                let source = message.label.source
                store.storeMessage(
                    createdAt: message.createdAt, label: message.label.rawValue, level: message.level,
                    message: message.line.text, metadata: message.line.metadata,
                    file: source.file, function: message.line.function ?? source.function,
                    line: UInt(source.line + Int(message.level.rawValue) * 7))
                levelCounts[Int(message.level.rawValue)] += 1
                labelCounts[labelIndex[message.label] ?? 0] += 1
            }
            // Flush before closing: close() alone can close the connection while a large backlog
            // is still queued (reported to the library owners), failing with SQLite error 21.
            try await store.flush()
            try await store.close()
            tally.written += share
            tally.sessions += 1
            progress(session, share)
        }
        for level in LogStore.Level.allCases { tally.levels[level] = levelCounts[Int(level.rawValue)] }
        for (index, label) in DemoLabel.allCases.enumerated() where labelCounts[index] > 0 {
            tally.labels[label.rawValue] = labelCounts[index]
        }
        return tally
    }
}
