import Foundation
import LogStore

/// One demo message, ready for `storeMessage`.
struct DemoMessage {
    var createdAt: Date
    var label: DemoLabel
    var level: LogStore.Level
    var line: DemoLine
    /// Logged during the demo's outage (``DemoGenerator/outageShare``), whatever its level.
    var isOutage = false
}

/// Makes the demo's messages: a realistic level mix over weighted components, occasional
/// incidents (short bursts of errors), one outage worth finding, and times spread over `span`
/// ending at `end`, strictly increasing, with a pause between sessions as if the app had
/// restarted.
///
/// The outage: the messages from ``outageShare`` of the way in come ``outageDensity`` times as
/// fast for ``outageDuration`` (a database gone, retries and errors logged), about half of
/// them errors, and the network tasks of that window fail (``DemoMessage/isOutage``). Outside
/// it the times are spread evenly.
struct DemoGenerator {
    private var random: DemoRandom
    private let start: Date
    /// Seconds between two messages outside the outage.
    private let spacing: Double
    /// Seconds between two messages during the outage.
    private let outageSpacing: Double
    /// Seconds of the timeline before the outage (without restart pauses).
    private let beforeOutage: Double
    /// The indexes of the outage's messages.
    private let outage: Range<Int>
    /// Seconds the app is "down" between two sessions.
    let restartPause: Double
    private var index = 0
    private var session = 0
    private var incident: (DemoIncident, step: Int, startIndex: Int)?
    private var outageStep = 0

    /// Where the outage starts, as a share of the messages.
    static let outageShare = 0.52
    /// The share of the messages the outage holds.
    static let outageMessageShare = 0.08
    /// How long the outage lasts, at most (and at most a twentieth of the timeline).
    static let outageDuration: TimeInterval = 300
    /// Below this many messages there is no outage: too few to tell a burst.
    static let outageMinimumCount = 100

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
        start = end.addingTimeInterval(-span)
        let first = Int(Double(count) * Self.outageShare)
        let length = Int(Double(count) * Self.outageMessageShare)
        guard count >= Self.outageMinimumCount, length > 0 else {
            spacing = active / Double(max(1, count))
            outageSpacing = spacing
            beforeOutage = active
            outage = count..<count
            return
        }
        outage = first..<(first + length)
        let duration = min(Self.outageDuration, active / 20)
        // The rest of the timeline at one pace, before and after the outage.
        spacing = (active - duration) / Double(count - length)
        outageSpacing = duration / Double(length)
        beforeOutage = spacing * Double(first)
    }

    /// The next message, logged in session number `session` (0-based, never decreasing).
    mutating func next(session: Int) -> DemoMessage {
        if session != self.session {
            // An incident does not survive a restart.
            self.session = session
            incident = nil
        }
        defer { index += 1 }
        if outage.contains(index) {
            incident = nil
            defer { outageStep += 1 }
            // Ordinary work goes on between the failures, at the outage's pace.
            if outageStep == 0 || random.chance(0.6) {
                let (label, level, line) = DemoIncident.outage.message(outageStep, &random)
                let time = baseTime(index) + random.double(0..<0.9) * outageSpacing
                return DemoMessage(createdAt: Date(timeIntervalSince1970: time), label: label, level: level, line: line, isOutage: true)
            }
            var message = ordinary(spacing: outageSpacing)
            message.isOutage = true
            return message
        }
        if incident == nil, index > 0, !outage.contains(index + 1), random.chance(Self.incidentRate) {
            incident = (DemoIncident(&random, maximumSpacing: min(spacing, outageSpacing) * 0.5), 0, index)
        }
        if let (current, step, startIndex) = incident {
            let (label, level, line) = current.message(step, &random)
            incident = step + 1 < current.length ? (current, step + 1, startIndex) : nil
            // Packed after the incident's first message; `maximumSpacing` keeps it before the
            // time the next ordinary message would have had.
            let time = baseTime(startIndex) + Double(step) * current.spacing
            return DemoMessage(createdAt: Date(timeIntervalSince1970: time), label: label, level: level, line: line)
        }
        return ordinary(spacing: spacing)
    }

    /// A message of the usual mix, at a random point before the next index's time.
    private mutating func ordinary(spacing: Double) -> DemoMessage {
        let label = Self.labels[random.weightedIndex(Self.labelWeights)]
        let level = Self.levels[random.weightedIndex(Self.levelShares)]
        let time = baseTime(index) + random.double(0..<0.9) * spacing
        return DemoMessage(
            createdAt: Date(timeIntervalSince1970: time), label: label, level: level, line: label.line(level, &random))
    }

    /// The time of the message at `index`: evenly spaced, except that the outage's messages
    /// come faster; every session after the first starts a restart pause later.
    private func baseTime(_ index: Int) -> TimeInterval {
        let active: Double
        if index < outage.lowerBound {
            active = Double(index) * spacing
        } else if index < outage.upperBound {
            active = beforeOutage + Double(index - outage.lowerBound) * outageSpacing
        } else {
            active = beforeOutage + Double(outage.count) * outageSpacing + Double(index - outage.upperBound) * spacing
        }
        return start.timeIntervalSince1970 + Double(session) * restartPause + active
    }
}
