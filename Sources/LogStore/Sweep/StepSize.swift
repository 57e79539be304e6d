/// How many rows a kind of sweep step handles: adjusted after each step so the next takes about
/// ``target(lastCommit:)``.
struct StepSize: Sendable {
    var rows: Int
    let range: ClosedRange<Int>

    /// As long as the writer's last batch of logged events took, within 40–120 ms: under heavy
    /// logging the writer then alternates batches and sweep steps of about the same length (so
    /// the sweep keeps up, deleting being cheaper than inserting), and logging waits for one
    /// step at most, well within a save interval. When the store is over its size limit
    /// (`isUrgent`), the sweep takes turns twice as long, up to 250 ms: not filling the disk
    /// comes before logging at full speed.
    static func target(lastCommit: Duration, isUrgent: Bool) -> Duration {
        isUrgent
            ? min(max(lastCommit * 2, .milliseconds(40)), .milliseconds(250))
            : min(max(lastCommit, .milliseconds(40)), .milliseconds(120))
    }

    /// Sizes the next step from the last: `done` rows took `took` and wrote `wrote` bytes to
    /// the WAL. Deleting rows with random keys (tasks, blobs) touches a page per key, so a step
    /// can write far more than its rows hold: steps are held to `byteLimit` bytes of WAL, like
    /// a transaction of logged events, as the WAL counts against the size limit.
    mutating func adjust(rows done: Int, took: Duration, target: Duration, wrote: Int, byteLimit: Int) {
        guard done > 0 else { return }
        let byTime = Double(done) * target.seconds / max(took.seconds, 1e-4)
        let byBytes = Double(done) * Double(byteLimit) / Double(max(wrote, 1))
        rows = min(max(Int(min(byTime, byBytes)), range.lowerBound), range.upperBound)
    }
}
