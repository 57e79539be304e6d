/// Giving the space a sweep freed back to the file system.
extension Sweeper {
    /// Incremental vacuum in steps, each followed by a passive checkpoint so the WAL does not
    /// grow by the pages moved; then a truncating checkpoint leaves the WAL empty.
    func giveFreePagesBack(truncatingTheWAL: Bool) async throws {
        // The full-text index keeps deleted words until its segments merge: after large
        // deletions compact it first, so the pages it frees are given back too. At most one
        // rewrite of the index as it is now: while logging goes on, new segments keep arriving
        // and an incremental optimize alone would never run out of work.
        let reporter = SweepProgressReporter.current
        if let budget = try await store.read({ try SearchIndex.compactionBudget($0) }) {
            reporter?.begin(.compactingSearchIndex, total: Int64(budget))
            let merged: @Sendable (Int) -> Int64 = { Int64(budget - max(0, $0)) }
            _ = try await repeatSteps(budget, size: Self.indexMergePagesPerStep, counting: merged) { writer, left, pages in
                let merged = try writer.compactSearchIndex(pages: min(pages, max(1, left)))
                left -= pages
                return (!merged || left <= 0, pages)
            }
            try await writer.perform(ordered: false) { try SearchIndex.markCompacted($0) }
        }
        let free = Int(try await store.read { try $0.freelistCount() } ?? 0)
        if free > 0 || truncatingTheWAL { reporter?.begin(.givingSpaceBack, total: Int64(free)) }
        if free > 0 {
            _ = try await repeatSteps(free, size: Self.vacuumPagesPerStep) { writer, left, pages in
                let before = left
                left = try writer.vacuum(pages: pages)
                return (left == 0 || left >= before, before - left)
            }
        }
        if truncatingTheWAL { try await writer.perform(ordered: false) { try $0.truncateWAL() } }
    }
}
