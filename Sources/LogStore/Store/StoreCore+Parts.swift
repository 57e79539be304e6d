import Foundation

/// The narrow parts of an open store that the layers below hand around instead of the core.
extension StoreCore: SweptStore, TailedStore {
    var filesDirectory: URL? { isInMemory ? nil : directory }

    var lastSweepDate: Date? { manifest.withLock { $0.lastSweepDate } }

    func recordSweep(_ report: LogStore.SweepReport) throws {
        guard !isInMemory else {
            manifest.withLock { $0.lastSweepDate = report.date; $0.lastSweep = report }
            return
        }
        try manifest.withLock { manifest in
            var updated = manifest
            updated.lastSweepDate = report.date
            updated.lastSweep = report
            try updated.write(in: directory)
            manifest = updated
        }
    }

    var neverChanges: Bool { archive != nil }

    func startWatchingCommits() { commitWatch?.start() }

    func stopWatchingCommits() { commitWatch?.stop() }
}
