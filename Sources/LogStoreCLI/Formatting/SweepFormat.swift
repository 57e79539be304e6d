import LogStore

/// How `logstore sweep` and `logstore info` describe a sweep.
enum SweepFormat {
    /// `30 messages, 2 tasks, 1 body dropped, 5 blobs, 0 orphan files`.
    ///
    /// - Parameter omittingZeros: leave out what it removed none of (for one summary line);
    ///   `nothing` when that is everything.
    static func removed(_ report: LogStore.SweepReport, omittingZeros: Bool = false) -> String {
        let items: [(Int, String)] = [
            (report.removedMessages, Format.plural(report.removedMessages, "message")),
            (report.removedTasks, Format.plural(report.removedTasks, "task")),
            // Not through `plural`: body → bodies.
            (report.droppedBodies, "\(Format.count(report.droppedBodies)) \(report.droppedBodies == 1 ? "body" : "bodies") dropped"),
            (report.removedBlobs, Format.plural(report.removedBlobs, "blob")),
            (report.removedOrphanFiles, Format.plural(report.removedOrphanFiles, "orphan file")),
        ]
        let shown = items.filter { !omittingZeros || $0.0 != 0 }.map(\.1)
        return shown.isEmpty ? "nothing" : shown.joined(separator: ", ")
    }

    /// `20.7 MB → 14.1 MB (6.6 MB reclaimed)`.
    static func sizes(_ report: LogStore.SweepReport) -> String {
        "\(Format.bytes(report.sizeBefore)) → \(Format.bytes(report.sizeAfter)) (\(Format.bytes(report.reclaimedBytes)) reclaimed)"
    }

    /// `0.35 s`: wall time, to the hundredth (sweeps of small stores take milliseconds).
    static func duration(_ report: LogStore.SweepReport) -> String {
        "\(Format.decimal(report.duration / .seconds(1), places: 2)) s"
    }

    /// `14d`, `12h`, `90s`: an age in the largest unit up to days that divides it, so that it
    /// reads back as a `--max-age` (fractions of a second are dropped; `Format.duration` is for
    /// uptimes). No weeks: retention is thought of in days.
    static func age(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        for (unit, size) in [("d", Int64(86_400)), ("h", 3600), ("m", 60)]
        where seconds >= size && seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }

    /// `10 messages, 1 task older than the age limit, not yet consumed (retention guard asked
    /// by server)` when the retention guard was on as the sweep ended, else empty (no line).
    static func guarded(_ report: LogStore.SweepReport) -> String {
        guard !report.retentionGuardAuthors.isEmpty else { return "" }
        let askers = report.retentionGuardAuthors.map { Format.escaped($0) }.joined(separator: ", ")
        return "\(Format.plural(report.guardedMessages, "message")), \(Format.plural(report.guardedTasks, "task")) "
            + "older than the age limit, not yet consumed (retention guard asked by \(askers))"
    }

    /// The second line of `info`'s `Last sweep`: `manual: removed 30 messages, 5 blobs; 20.7 MB
    /// → 14.1 MB (6.6 MB reclaimed)`.
    static func summary(_ report: LogStore.SweepReport) -> String {
        "\(report.trigger.rawValue): removed \(removed(report, omittingZeros: true)); \(sizes(report))"
    }
}

/// `sweep --json`: every field of ``LogStore/SweepReport`` under its `Codable` name, plus
/// `reclaimedBytes`, which the report computes rather than stores.
struct SweepReportRecord: Encodable {
    var report: LogStore.SweepReport

    private enum Keys: String, CodingKey {
        case reclaimedBytes
    }

    func encode(to encoder: any Encoder) throws {
        // The report's own encoding first, so fields the library adds later appear without a
        // change here; the computed value joins the same object.
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(report.reclaimedBytes, forKey: .reclaimedBytes)
    }
}
