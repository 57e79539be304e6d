public import Foundation

extension LogStore {
    /// Something that happened in the store, as delivered to ``LogStore/subscribeEvents()`` subscribers and
    /// to ``Configuration/willHandleEvent``.
    public enum Event: Sendable, Codable {
        /// A message was logged (and, on ``LogStore/subscribeEvents()``, committed).
        case messageStored(MessageCreated)
        /// A network task started. (The network cases are `indirect`: boxed, they keep every
        /// event, messages included, as small as a message in the ingestion buffer.)
        indirect case networkTaskCreated(NetworkTaskCreated)
        /// A network task's progress changed.
        case networkTaskProgressUpdated(NetworkTaskProgressUpdated)
        /// A network task finished.
        indirect case networkTaskCompleted(NetworkTaskCompleted)

        /// A logged message, before it is stored.
        public struct MessageCreated: Sendable, Codable, Equatable {
            /// When it was logged.
            public var createdAt: Date
            /// The subsystem or component that logged it.
            public var label: String
            /// Its severity.
            public var level: Level
            /// The text.
            public var message: String
            /// Structured data, stored as JSON.
            public var metadata: Metadata?
            /// The source file (`#fileID`); stored as its last path component.
            public var file: String
            /// The function that logged it.
            public var function: String
            /// The source line.
            public var line: UInt
            /// The OS thread id of the caller.
            public var threadID: Int32
            /// The caller thread's name, when it has one.
            public var threadName: String?

            /// Creates a message event.
            public init(
                createdAt: Date, label: String, level: Level, message: String, metadata: Metadata?,
                file: String, function: String, line: UInt, threadID: Int32 = 0, threadName: String? = nil
            ) {
                self.createdAt = createdAt
                self.label = label
                self.level = level
                self.message = message
                self.metadata = metadata
                self.file = file
                self.function = function
                self.line = line
                self.threadID = threadID
                self.threadName = threadName
            }
        }

        /// Whether this is one of the network task events (which redaction rewrites).
        var isNetworkEvent: Bool {
            if case .messageStored = self { return false }
            return true
        }

        /// Roughly the bytes storing this event writes (before compression): what bounds a
        /// transaction, and so the WAL, when events carry bodies.
        var estimatedSize: Int {
            switch self {
            case .messageStored(let message): return 128 + message.message.utf8.count
            case .networkTaskCreated, .networkTaskProgressUpdated: return 512
            case .networkTaskCompleted(let task):
                let requestBody: Int = (task.requestBody ?? task.request.body)?.count ?? 0
                let responseBody: Int = task.responseBody?.count ?? 0
                return 1_024 + requestBody + responseBody
            }
        }

        /// The level used to decide what the overflow policy drops first.
        var level: Level {
            switch self {
            case .messageStored(let message): message.level
            case .networkTaskCreated: .debug
            case .networkTaskProgressUpdated: .trace
            case .networkTaskCompleted(let task): task.isFailure ? .error : .debug
            }
        }
    }
}
