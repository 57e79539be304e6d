import Foundation
import LogStore

/// One task as `/api/tasks/{id}` sends it: every key of ``NetworkTaskDetails``, plus `phases`,
/// for each of its `transactions` (same order) the phases `logstore task` and the exported page
/// draw, ``NetworkTransactionMetrics/phases(taskEnd:)``. The page's timeline reads those rather
/// than pairing the metrics' times itself, so a request that timed out shows its waiting up to
/// the task's end ("no response"), as the CLI and the export do.
///
/// A phase is `{"name": "Waiting", "start": 1750000000.01, "end": 1750000010.01, "noResponse": true}`:
/// times in seconds since 1970, like every time of the API; no `end` when the phase began and
/// never finished; `noResponse` only when true.
struct ConsoleTask: Encodable {
    var details: NetworkTaskDetails

    init(_ details: NetworkTaskDetails) {
        self.details = details
    }

    struct Phase: Encodable, Equatable {
        var name: String
        var start: Date
        var end: Date?
        var noResponse: Bool?

        init(_ phase: NetworkTransactionMetrics.Phase) {
            name = phase.kind.name
            start = phase.start
            end = phase.end
            noResponse = phase.endsWithoutResponse ? true : nil
        }
    }

    /// The phases of each transaction; a pending task has no end yet, so a request still
    /// waiting for its response has an open waiting phase.
    var phases: [[Phase]] {
        let summary = details.summary
        let taskEnd = summary.duration.map { summary.createdAt.addingTimeInterval($0) }
        return details.transactions.map { $0.phases(taskEnd: taskEnd).map(Phase.init) }
    }

    private enum Key: String, CodingKey {
        case phases
    }

    func encode(to encoder: any Encoder) throws {
        // The details' own keys, then `phases` in the same object (JSONEncoder hands back the
        // keyed container already open at this level): a client that read the details as they
        // were reads them unchanged.
        try details.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(phases, forKey: .phases)
    }
}
