/// What a live tail needs of the store it follows: reads, the signal of its commits (this
/// process's, and the watch's for other processes'), and whether it can change at all.
protocol TailedStore: DatabaseReading {
    /// Notified after every commit the tail should read.
    var commits: CommitSignal { get }
    /// Whether the store never changes (an archive): a tail then ends after what it holds.
    var neverChanges: Bool { get }
    /// A tail starts or stops following the store: other processes' commits are watched while
    /// at least one does.
    func startWatchingCommits()
    func stopWatchingCommits()
}
