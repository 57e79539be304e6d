public import Foundation

extension LogStore {
    /// What one sweep did: from ``LogStore/sweep()``, and the last one in ``Info/lastSweep``.
    public struct SweepReport: Sendable, Codable, Hashable {
        /// Why the sweep ran.
        public enum Trigger: String, Sendable, Codable, Hashable {
            /// ``LogStore/sweep()`` was called.
            case manual
            /// The schedule of a store opened with ``Options/sweep``: after opening, then every
            /// ``Configuration/sweepInterval``.
            case schedule
            /// The store reached 85 % of ``Configuration/sizeLimit`` while open with
            /// ``Options/sweep``.
            case size
        }

        /// When it started, by the store's ``Configuration/timeSource``.
        public var date: Date
        /// What started it: a schedule, the size check or a call to ``LogStore/sweep()``.
        public var trigger: Trigger
        /// How long it took (wall time).
        public var duration: Duration
        /// Logged messages removed (technical messages of removed tasks are not counted).
        public var removedMessages: Int
        /// Network tasks removed, with their heads, transactions and body links.
        public var removedTasks: Int
        /// Tasks that kept their row but lost their bodies to the blob share
        /// (``Configuration/blobSizeShare``).
        public var droppedBodies: Int
        /// Blobs deleted because no task links them any more.
        public var removedBlobs: Int
        /// Files in `blobs/` without a row (left by a crash) and stale temporary files removed.
        public var removedOrphanFiles: Int
        /// Bytes the store directory took on disk (allocated blocks of all its files: database,
        /// WAL, shared memory, manifest and blob files) before and after.
        public var sizeBefore: Int64
        /// See ``sizeBefore``.
        public var sizeAfter: Int64
        /// Messages older than ``Configuration/maxAge`` still in the store after the sweep
        /// because the retention guard was on (``HistoryConfiguration/retentionGuard``): they
        /// lie from the lowest id a required history author had not consumed on (technical
        /// messages of tasks aside, as in ``removedMessages``). Zero when no author asks for the
        /// guard as the sweep ends; what the size limit deleted after all is in
        /// ``removedMessages`` instead.
        public var guardedMessages: Int
        /// Tasks older than ``Configuration/maxAge`` still in the store after the sweep because
        /// the retention guard was on (see ``guardedMessages``).
        public var guardedTasks: Int
        /// The history authors whose request turned the retention guard on as the sweep ended
        /// (``HistoryStatus/retentionGuardAuthors``), by name; empty when none asks.
        public var retentionGuardAuthors: [String]

        /// Bytes given back to the file system.
        public var reclaimedBytes: Int64 { max(0, sizeBefore - sizeAfter) }

        /// A report; every count defaults to zero (for tests and tools that build one).
        public init(
            date: Date, trigger: Trigger, duration: Duration = .zero, removedMessages: Int = 0, removedTasks: Int = 0,
            droppedBodies: Int = 0, removedBlobs: Int = 0, removedOrphanFiles: Int = 0, sizeBefore: Int64 = 0,
            sizeAfter: Int64 = 0, guardedMessages: Int = 0, guardedTasks: Int = 0, retentionGuardAuthors: [String] = []
        ) {
            self.date = date
            self.trigger = trigger
            self.duration = duration
            self.removedMessages = removedMessages
            self.removedTasks = removedTasks
            self.droppedBodies = droppedBodies
            self.removedBlobs = removedBlobs
            self.removedOrphanFiles = removedOrphanFiles
            self.sizeBefore = sizeBefore
            self.sizeAfter = sizeAfter
            self.guardedMessages = guardedMessages
            self.guardedTasks = guardedTasks
            self.retentionGuardAuthors = retentionGuardAuthors
        }
    }
}

extension LogStore.SweepReport {
    private enum CodingKeys: String, CodingKey {
        case date, trigger, duration, removedMessages, removedTasks, droppedBodies, removedBlobs, removedOrphanFiles
        case sizeBefore, sizeAfter, guardedMessages, guardedTasks, retentionGuardAuthors
    }

    /// Reads a report as the manifest keeps it: `duration` in seconds, as every version wrote it.
    /// A report written before the retention guard was reported reads as one that kept nothing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            date: try container.decode(Date.self, forKey: .date),
            trigger: try container.decode(Trigger.self, forKey: .trigger),
            duration: .seconds(try container.decode(Double.self, forKey: .duration)),
            removedMessages: try container.decode(Int.self, forKey: .removedMessages),
            removedTasks: try container.decode(Int.self, forKey: .removedTasks),
            droppedBodies: try container.decode(Int.self, forKey: .droppedBodies),
            removedBlobs: try container.decode(Int.self, forKey: .removedBlobs),
            removedOrphanFiles: try container.decode(Int.self, forKey: .removedOrphanFiles),
            sizeBefore: try container.decode(Int64.self, forKey: .sizeBefore),
            sizeAfter: try container.decode(Int64.self, forKey: .sizeAfter),
            guardedMessages: try container.decodeIfPresent(Int.self, forKey: .guardedMessages) ?? 0,
            guardedTasks: try container.decodeIfPresent(Int.self, forKey: .guardedTasks) ?? 0,
            retentionGuardAuthors: try container.decodeIfPresent([String].self, forKey: .retentionGuardAuthors) ?? [])
    }

    /// Writes `duration` in seconds (a number), as the manifest and `--json` always had it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(date, forKey: .date)
        try container.encode(trigger, forKey: .trigger)
        try container.encode(duration.seconds, forKey: .duration)
        try container.encode(removedMessages, forKey: .removedMessages)
        try container.encode(removedTasks, forKey: .removedTasks)
        try container.encode(droppedBodies, forKey: .droppedBodies)
        try container.encode(removedBlobs, forKey: .removedBlobs)
        try container.encode(removedOrphanFiles, forKey: .removedOrphanFiles)
        try container.encode(sizeBefore, forKey: .sizeBefore)
        try container.encode(sizeAfter, forKey: .sizeAfter)
        try container.encode(guardedMessages, forKey: .guardedMessages)
        try container.encode(guardedTasks, forKey: .guardedTasks)
        try container.encode(retentionGuardAuthors, forKey: .retentionGuardAuthors)
    }
}
