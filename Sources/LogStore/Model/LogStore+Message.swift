public import Foundation

extension LogStore {
    /// A stored message, as queries return it.
    public struct Message: Sendable, Codable, Hashable, Identifiable {
        /// The row id: increases in commit order, so it also orders messages by time of logging.
        public var id: Int64
        /// When it was logged.
        public var createdAt: Date
        /// Its severity.
        public var level: Level
        /// The subsystem or component that logged it.
        public var label: String
        /// The text.
        public var text: String
        /// Structured data (empty when none was given). Metadata cut at
        /// ``LogStore/maxMetadataBytes`` is one `_truncated` string; stored text that is not a
        /// JSON object (written by another tool) is kept whole as one `_raw` string.
        public var metadata: Metadata
        /// The source file's name (last path component); `nil` for the technical message of a
        /// network task, which has no source location (stores of schema 3 and older, opened
        /// read-only, show those as `""`, `0`).
        public var file: String?
        /// The function that logged it; `nil` for a network task's technical message.
        public var function: String?
        /// The source line; `nil` for a network task's technical message.
        public var line: Int?
        /// The OS thread id of the caller; `nil` for a network task's technical message (the
        /// writer makes it, no caller's thread does).
        public var threadID: Int32?
        /// The caller thread's name, when it had one.
        public var threadName: String?
        /// The session (process run) that logged it.
        public var sessionID: UUID
    }
}
