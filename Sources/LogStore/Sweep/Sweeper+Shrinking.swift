/// Giving the space a sweep freed back to the file system.
extension Sweeper {
    /// Incremental vacuum in steps, each followed by a passive checkpoint so the WAL does not
    /// grow by the pages moved; then a truncating checkpoint leaves the WAL empty.
    func giveFreePagesBack(truncatingTheWAL: Bool) async throws {
        // Partitions of the full-text index that only deleted messages were in go whole, each
        // in a step of its own (a partition indexed before schema 11 may be large).
        let reporter = SweepProgressReporter.current
        for partition in try await store.read({ try SearchIndex.emptyPartitions($0) }) {
            _ = try await writer.perform(ordered: false) { try $0.dropSearchPartition(partition) }
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
