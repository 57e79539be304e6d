import Foundation
import LogStore

/// One demo message, ready for `storeMessage`.
struct DemoMessage {
    var createdAt: Date
    var label: DemoLabel
    var level: LogStore.Level
    var line: DemoLine
}

/// Makes the demo's messages: a realistic level mix over weighted components, occasional
/// incidents (bursts of errors), and times spread evenly over `span` ending at `end`, strictly
/// increasing, with a pause between sessions as if the app had restarted.
struct DemoGenerator {
    private var random: DemoRandom
    private let start: Date
    /// Average seconds between two messages.
    private let spacing: Double
    /// Seconds the app is "down" between two sessions.
    private let restartPause: Double
    private var index = 0
    private var session = 0
    private var incident: (DemoIncident, step: Int, startIndex: Int)?

    /// Mostly debug and info, some notice and warning, rare error and critical (per mille).
    static let levelWeights: [(LogStore.Level, Int)] = [
        (.trace, 40), (.debug, 380), (.info, 440), (.notice, 60), (.warning, 60), (.error, 17), (.critical, 3),
    ]
    private static let labels = DemoLabel.allCases
    private static let labelWeights = DemoLabel.allCases.map(\.weight)
    private static let levels = levelWeights.map(\.0)
    private static let levelShares = levelWeights.map(\.1)
    /// The chance that a message starts an incident.
    private static let incidentRate = 1.0 / 3000

    init(seed: UInt64, count: Int, sessions: Int, end: Date, span: TimeInterval = 3 * 3600) {
        random = DemoRandom(seed: seed)
        restartPause = min(60, span * 0.1 / Double(max(1, sessions)))
        let active = span - restartPause * Double(max(0, sessions - 1))
        spacing = active / Double(max(1, count))
        start = end.addingTimeInterval(-span)
    }

    /// The next message, logged in session number `session` (0-based, never decreasing).
    mutating func next(session: Int) -> DemoMessage {
        if session != self.session {
            // An incident does not survive a restart.
            self.session = session
            incident = nil
        }
        defer { index += 1 }
        if incident == nil, index > 0, random.chance(Self.incidentRate) {
            incident = (DemoIncident(&random, maximumSpacing: spacing * 0.5), 0, index)
        }
        if let (current, step, startIndex) = incident {
            let (label, level, line) = current.message(step, &random)
            incident = step + 1 < current.length ? (current, step + 1, startIndex) : nil
            // Packed after the incident's first message; `maximumSpacing` keeps it before the
            // time the next ordinary message would have had.
            let time = baseTime(startIndex) + Double(step) * current.spacing
            return DemoMessage(createdAt: Date(timeIntervalSince1970: time), label: label, level: level, line: line)
        }
        let label = Self.labels[random.weightedIndex(Self.labelWeights)]
        let level = Self.levels[random.weightedIndex(Self.levelShares)]
        let time = baseTime(index) + random.double(0..<0.9) * spacing
        return DemoMessage(
            createdAt: Date(timeIntervalSince1970: time), label: label, level: level, line: label.line(level, &random))
    }

    private func baseTime(_ index: Int) -> TimeInterval {
        start.timeIntervalSince1970 + Double(session) * restartPause + Double(index) * spacing
    }
}
