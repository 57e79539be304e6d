/// Giving the space a sweep freed back to the file system.
extension Sweeper {
    /// Incremental vacuum in steps, each followed by a passive checkpoint so the WAL does not
    /// grow by the pages moved; then a truncating checkpoint leaves the WAL empty.
    func giveFreePagesBack(truncatingTheWAL: Bool) async throws {
        // Partitions of the full-text index that only deleted messages were in go whole, in
        // steps sized like the sweep's others: under load each step waits for a batch of logged
        // events, and a job per partition took `sweep.age90_s` from 2.79× to 3.12× a `DELETE`
        // (3 runs alternated). They count toward no phase's progress.
        let reporter = SweepProgressReporter.current
        let empty = try await store.read { try SearchIndex.emptyPartitions($0) }
        if !empty.isEmpty {
            _ = try await repeatSteps(empty[...], size: Self.partitionsPerStep, counting: { _ in 0 }) { writer, left, count in
                let batch = left.prefix(count)
                left = left.dropFirst(count)
                for partition in batch { _ = try writer.dropSearchPartition(partition) }
                return (left.isEmpty, batch.count)
            }
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
