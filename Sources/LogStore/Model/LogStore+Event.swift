public import Foundation

extension LogStore {
    /// Something that happened in the store, as delivered to ``LogStore/subscribeEvents()`` subscribers and
    /// to ``Configuration/willHandleEvent``.
    public enum Event: Sendable, Codable {
        /// A message was logged (and, on ``LogStore/subscribeEvents()``, committed).
        ///
        /// Every case is `indirect`: boxed, an event is one pointer, so each slot of the
        /// ingestion buffer's and the batches' arrays takes 8 bytes instead of a message's 120
        /// (four such arrays, each sized for a full buffer, held ~15 MB), and copying an event
        /// into the buffer under its lock retains one box instead of each of its strings.
        indirect case messageStored(MessageCreated)
        /// A network task started.
        indirect case networkTaskCreated(NetworkTaskCreated)
        /// A network task's progress changed.
        indirect case networkTaskProgressUpdated(NetworkTaskProgressUpdated)
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
            /// Metadata a bridge handed over in its own form (a swift-log call's dictionaries),
            /// which the writer makes into ``metadata`` before anything else reads the event:
            /// see ``DeferredMetadata``. Nil once resolved, and for the store's own calls.
            var deferredMetadata: (any DeferredMetadata)?

            // The public fields only: deferred metadata is resolved before an event reaches
            // anyone who could encode it (hooks, subscribers).
            private enum CodingKeys: String, CodingKey {
                case createdAt, label, level, message, metadata, file, function, line, threadID, threadName
            }

            /// Creates a message event.
            // Not inlined: called, it builds the message in place in the event's box; inlined
            // into the logging call, the compiler built it on the stack and copied it into the
            // box (retaining each string once more, then releasing the stack copy).
            @inline(never)
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

            /// A message whose metadata the writer resolves (``DeferredMetadata``).
            // Not inlined, for the public initializer's reason.
            @inline(never)
            init(
                createdAt: Date, label: String, level: Level, message: String,
                deferredMetadata: any DeferredMetadata,
                file: String, function: String, line: UInt, threadID: Int32, threadName: String?
            ) {
                self.createdAt = createdAt
                self.label = label
                self.level = level
                self.message = message
                self.metadata = nil
                self.deferredMetadata = deferredMetadata
                self.file = file
                self.function = function
                self.line = line
                self.threadID = threadID
                self.threadName = threadName
            }

            /// Messages compare by their fields, metadata by its content (deferred metadata
            /// as the writer will resolve it).
            public static func == (lhs: MessageCreated, rhs: MessageCreated) -> Bool {
                lhs.createdAt == rhs.createdAt && lhs.label == rhs.label && lhs.level == rhs.level
                    && lhs.message == rhs.message && lhs.file == rhs.file && lhs.function == rhs.function
                    && lhs.line == rhs.line && lhs.threadID == rhs.threadID && lhs.threadName == rhs.threadName
                    && lhs.resolvedMetadata == rhs.resolvedMetadata
            }

            /// ``metadata``, or the deferred metadata resolved (without storing it).
            var resolvedMetadata: Metadata? {
                if let deferredMetadata { return deferredMetadata.resolve() }
                return metadata
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
            case .messageStored(let message):
                // Deferred metadata counts as its bridge estimated it when the call was made:
                // the buffer must subtract what it added.
                return Self.estimatedSize(message: message.message, metadata: message.metadata)
                    + (message.deferredMetadata?.estimatedSize ?? 0)
            case .networkTaskCreated, .networkTaskProgressUpdated: return 512
            case .networkTaskCompleted(let task):
                // Both request bodies count when both were given (NetworkLogger passes the same
                // buffer twice: counted once).
                let requestBody = task.requestBody?.count ?? 0
                let headBody = task.request.body?.count ?? 0
                let requestBodies = Self.isSameBuffer(task.requestBody, task.request.body)
                    ? requestBody : requestBody + headBody
                let responseBody: Int = task.responseBody?.count ?? 0
                return 1_024 + requestBodies + responseBody
            }
        }

        /// ``estimatedSize`` of a message with this text and metadata: the logging call computes
        /// it from its arguments, before they are boxed into an event.
        static func estimatedSize(message: String, metadata: Metadata?) -> Int {
            128 + message.utf8.count + (metadata.map(Self.estimatedSize(of:)) ?? 0)
        }

        /// Whether two bodies are one buffer (no byte comparison: this runs on every logging call).
        private static func isSameBuffer(_ first: Data?, _ second: Data?) -> Bool {
            guard let first, let second, first.count == second.count else { return false }
            return first.withUnsafeBytes { a in second.withUnsafeBytes { b in a.baseAddress == b.baseAddress } }
        }

        /// Roughly the bytes `metadata` holds: its keys and string values (a value described
        /// only by `description` counts a fixed 32 bytes, so the estimate never calls it).
        private static func estimatedSize(of metadata: Metadata) -> Int {
            var bytes = 0
            for (key, value) in metadata { bytes += 16 + key.utf8.count + estimatedSize(of: value) }
            return bytes
        }

        private static func estimatedSize(of value: MetadataValue) -> Int {
            switch value {
            case .string(let text): text.utf8.count
            case .stringConvertible: 32
            case .dictionary(let metadata): estimatedSize(of: metadata)
            case .array(let values): values.reduce(0) { $0 + 8 + estimatedSize(of: $1) }
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
