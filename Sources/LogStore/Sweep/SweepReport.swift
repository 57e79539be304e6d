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
        public var trigger: Trigger
        /// How long it took, in seconds (wall time).
        public var duration: Double
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
        public var sizeAfter: Int64

        /// Bytes given back to the file system.
        public var reclaimedBytes: Int64 { max(0, sizeBefore - sizeAfter) }

        public init(
            date: Date, trigger: Trigger, duration: Double = 0, removedMessages: Int = 0, removedTasks: Int = 0,
            droppedBodies: Int = 0, removedBlobs: Int = 0, removedOrphanFiles: Int = 0, sizeBefore: Int64 = 0,
            sizeAfter: Int64 = 0
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
        }
    }
}
