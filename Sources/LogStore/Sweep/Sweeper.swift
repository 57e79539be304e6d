import Foundation
import Synchronization

/// Runs sweeps: keeps a store within ``LogStore/Configuration/maxAge`` and
/// ``LogStore/Configuration/sizeLimit``.
///
/// A sweep is a series of small writer jobs (``BatchWriter`` + Sweep): each deletes a bounded
/// chunk in its own transaction, and the writer commits logged events between any two, so a
/// sweep of millions of rows never holds the write lock for long. Decisions (what is old, how
/// much to trim) are read on reader connections, beside the writer.
///
/// One sweep runs at a time; asking for another meanwhile waits for the running one.
final class Sweeper: Sendable {
    let core: StoreCore
    let writer: StoreWriter
    let configuration: LogStore.Configuration
    private let running = Mutex<Task<LogStore.SweepReport, any Error>?>(nil)
    let schedule = Mutex<Schedule?>(nil)

    /// Rows per transaction: about 20–40 ms of deletes each (measured on the bench's store), so
    /// logging waits at most that long for its next commit.
    static let messagesPerStep = 5_000
    static let tasksPerStep = 500
    /// Free pages given back per step: 4 MB of page moves at 4 KiB pages.
    static let vacuumPagesPerStep = 1_024
    /// Blob files and temporary files younger than this may belong to a write in progress in
    /// another process; the sweep leaves them (the open of a sole writer removes them all).
    static let orphanAge: TimeInterval = 600

    init(core: StoreCore, writer: StoreWriter, configuration: LogStore.Configuration) {
        self.core = core
        self.writer = writer
        self.configuration = configuration
    }

    /// Runs one sweep (or waits for the one running) and records it in the manifest.
    func sweep(_ trigger: LogStore.SweepReport.Trigger) async throws -> LogStore.SweepReport {
        let task = running.withLock { running -> Task<LogStore.SweepReport, any Error> in
            if let running { return running }
            let task = Task { try await self.run(trigger) }
            running = task
            return task
        }
        defer { running.withLock { if $0 == task { $0 = nil } } }
        return try await task.value
    }

    /// Bytes on disk now: the database, its WAL and the blob files.
    func diskUsage() async throws -> Int64 {
        if core.isInMemory {
            return try await core.read { try Self.usedBytes($0) }
        }
        return StoreFiles.diskUsage(of: core.directory)
    }

    private func run(_ trigger: LogStore.SweepReport.Trigger) async throws -> LogStore.SweepReport {
        let clock = configuration.timeSource
        let started = ContinuousClock.now
        var report = LogStore.SweepReport(date: clock.now(), trigger: trigger)
        report.sizeBefore = try await diskUsage()
        var removed = BatchWriter.Removed()

        let cutoff = report.date.addingTimeInterval(-configuration.maxAge.seconds)
        removed += try await removeOlder(than: cutoff)
        removed += try await trimBlobsToTheirShare()
        removed += try await trimMessagesToTheSizeLimit()
        report.removedOrphanFiles = try await writer.perform { [core, now = report.date] writer in
            guard !core.isInMemory else { return 0 }
            return try BlobStore.removeOrphans(
                directory: core.directory, connection: writer.connection, olderThan: Self.orphanAge, now: now
            ).files
        }
        try await writer.perform { try $0.deleteEmptySessions() }
        try await giveFreePagesBack()

        report.removedMessages = removed.messages
        report.removedTasks = removed.tasks
        report.removedBlobs = removed.blobs
        report.droppedBodies = removed.droppedBodies
        report.sizeAfter = try await diskUsage()
        report.duration = (ContinuousClock.now - started).seconds
        try record(report)
        return report
    }

    // MARK: Age

    /// Messages created before `cutoff`, found through their blocks (whole blocks by id range,
    /// the boundary blocks row by row), then tasks created before it.
    private func removeOlder(than cutoff: Date) async throws -> BatchWriter.Removed {
        let time = cutoff.timeIntervalSince1970
        let blocks = try await core.read { connection in
            let statement = try connection.prepare("""
                SELECT first_id, last_id, max_created_at < ? FROM message_blocks WHERE min_created_at < ? ORDER BY first_id
                """)
            try statement.bind([.real(time), .real(time)])
            var blocks: [(first: Int64, last: Int64, isAllOlder: Bool)] = []
            while try statement.step() {
                blocks.append((statement.int64(at: 0), statement.int64(at: 1), statement.int64(at: 2) != 0))
            }
            return blocks
        }
        var removed = BatchWriter.Removed()
        for block in Self.merged(blocks) {
            removed += try await deleteMessages(from: block.first, through: block.last, before: block.isAllOlder ? nil : cutoff)
        }
        while true {
            let step = try await writer.perform { try $0.deleteTasks(createdBefore: cutoff, limit: Self.tasksPerStep) }
            removed += step
            if step.tasks < Self.tasksPerStep { break }
        }
        return removed
    }

    /// Adjacent ranges with the same condition become one, so chunks stay full.
    private static func merged(
        _ blocks: [(first: Int64, last: Int64, isAllOlder: Bool)]
    ) -> [(first: Int64, last: Int64, isAllOlder: Bool)] {
        var merged: [(first: Int64, last: Int64, isAllOlder: Bool)] = []
        for block in blocks {
            if let last = merged.last, last.isAllOlder == block.isAllOlder, block.first <= last.last + 1 {
                merged[merged.count - 1].last = max(last.last, block.last)
            } else {
                merged.append(block)
            }
        }
        return merged
    }

    private func deleteMessages(from first: Int64, through last: Int64, before cutoff: Date?) async throws
        -> BatchWriter.Removed
    {
        var removed = BatchWriter.Removed()
        var next: Int64? = first
        while let from = next {
            let step = try await writer.perform { writer in
                try writer.deleteMessages(from: from, through: last, before: cutoff, limit: Self.messagesPerStep)
            }
            removed += step.removed
            next = step.next
        }
        return removed
    }

    // MARK: Size

    /// When blobs take more than their share of the size limit, drops the bodies of the oldest
    /// tasks (their rows stay) until blobs are at ``LogStore/Configuration/trimRatio`` of it.
    private func trimBlobsToTheirShare() async throws -> BatchWriter.Removed {
        let share = Double(configuration.sizeLimit) * configuration.blobSizeShare
        var stored = try await core.read { try Self.blobBytes($0) }
        guard Double(stored) > share else { return BatchWriter.Removed() }
        let target = Int64(share * configuration.trimRatio)
        var removed = BatchWriter.Removed()
        var afterID: Int64 = 0
        while stored > target {
            let toFree = stored - target
            let step = try await writer.perform { [afterID] writer in
                try writer.dropBodies(afterID: afterID, limit: Self.tasksPerStep, bytesToFree: toFree)
            }
            removed += step.removed
            stored -= step.freedBytes
            guard let last = step.lastID else { break }
            afterID = last
        }
        return removed
    }

    /// When the data (without free pages) is larger than the size limit, deletes the oldest
    /// messages, with the tasks they describe, so about ``LogStore/Configuration/trimRatio`` of
    /// the messages remain.
    private func trimMessagesToTheSizeLimit() async throws -> BatchWriter.Removed {
        let plan = try await core.read { [configuration] connection -> (first: Int64, cut: Int64)? in
            guard try Self.usedBytes(connection) > configuration.sizeLimit else { return nil }
            let count = try connection.integer("SELECT count(*) FROM messages") ?? 0
            let toRemove = count - Int64((Double(count) * configuration.trimRatio).rounded())
            guard toRemove > 0,
                let first = try connection.integer("SELECT min(id) FROM messages"),
                let cut = try connection.integer(
                    "SELECT id FROM messages ORDER BY id LIMIT 1 OFFSET ?", [.integer(toRemove)])
            else { return nil }
            return (first, cut)
        }
        guard let plan else { return BatchWriter.Removed() }
        var removed = try await deleteMessages(from: plan.first, through: plan.cut - 1, before: nil)
        // Tasks still pending have no technical message: those created before the cut go too.
        let cutDate = try await core.read { connection in
            try connection.real("SELECT created_at FROM messages WHERE id = ?", [.integer(plan.cut)])
        }
        if let cutDate {
            removed += try await removeOlderTasks(than: Date(timeIntervalSince1970: cutDate))
        }
        return removed
    }

    private func removeOlderTasks(than cutoff: Date) async throws -> BatchWriter.Removed {
        var removed = BatchWriter.Removed()
        while true {
            let step = try await writer.perform { try $0.deleteTasks(createdBefore: cutoff, limit: Self.tasksPerStep) }
            removed += step
            if step.tasks < Self.tasksPerStep { return removed }
        }
    }

    // MARK: Shrinking

    /// Incremental vacuum in steps, each followed by a passive checkpoint so the WAL does not
    /// grow by the pages moved; then a truncating checkpoint leaves the WAL empty.
    private func giveFreePagesBack() async throws {
        var left = Int.max
        // Each step frees at least one page while any is free: the bound only guards a loop.
        for _ in 0..<100_000 where left > 0 {
            left = try await writer.perform { try $0.vacuum(pages: Self.vacuumPagesPerStep) }
        }
        try await writer.perform { $0.truncateWAL() }
    }

    // MARK: Measures

    /// Bytes of data in the database (pages in use, not the free ones) plus the blob files.
    static func usedBytes(_ connection: Connection) throws -> Int64 {
        let pages = try connection.integer("PRAGMA page_count") ?? 0
        let free = try connection.integer("PRAGMA freelist_count") ?? 0
        let pageSize = try connection.integer("PRAGMA page_size") ?? 4096
        let files = try connection.integer("SELECT file_size FROM blob_totals") ?? 0
        return (pages - free) * pageSize + files
    }

    /// Bytes of blobs as stored, inline and in files.
    static func blobBytes(_ connection: Connection) throws -> Int64 {
        try connection.integer("SELECT size FROM blob_totals") ?? 0
    }

    private func record(_ report: LogStore.SweepReport) throws {
        guard !core.isInMemory else {
            core.manifest.withLock { $0.lastSweepDate = report.date; $0.lastSweep = report }
            return
        }
        try core.manifest.withLock { manifest in
            var updated = manifest
            updated.lastSweepDate = report.date
            updated.lastSweep = report
            try updated.write(in: core.directory)
            manifest = updated
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
