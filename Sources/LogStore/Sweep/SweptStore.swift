import Foundation

/// What a sweep needs of the store it sweeps: reads, where its files are, and the record of its
/// sweeps (the manifest's). The store's core provides it; the sweep never holds the core.
protocol SweptStore: DatabaseReading {
    /// The store's directory (its size on disk, its body files); nil for a store in memory.
    var filesDirectory: URL? { get }
    /// When the store was last swept, by any process.
    var lastSweepDate: Date? { get }
    /// Records a finished sweep (the manifest's `lastSweepDate` and `lastSweep`).
    func recordSweep(_ report: LogStore.SweepReport) throws
}
