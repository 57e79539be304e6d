public import Foundation

extension LogStore.Event {
    /// A network task started (``NetworkLogger/logTaskCreated(taskID:type:request:createdAt:taskDescription:direction:)``).
    public struct NetworkTaskCreated: Sendable, Codable, Equatable {
        /// The task's identity, shared by all its events.
        public var taskID: UUID
        /// Data, download, upload, stream or WebSocket.
        public var taskType: NetworkTaskType
        /// When it started.
        public var createdAt: Date
        /// The request as sent (redacted before it is stored or published).
        public var request: NetworkRequest
        /// The label of its technical message (`"network"` unless set).
        public var label: String
        /// A description the caller gave the task.
        public var taskDescription: String?
        /// A call this process made (outbound) or a request it handled (inbound).
        public var direction: NetworkTaskDirection
        /// Shared with the task's completion by ``NetworkLogger``: its head is stored once.
        var creationHead = CreationHeadLink()

        private enum CodingKeys: String, CodingKey {
            case taskID, taskType, createdAt, request, label, taskDescription, direction
        }

        /// Creates the event.
        public init(
            taskID: UUID, taskType: NetworkTaskType, createdAt: Date, request: NetworkRequest, label: String,
            taskDescription: String? = nil, direction: NetworkTaskDirection = .outbound
        ) {
            self.direction = direction
            self.taskID = taskID
            self.taskType = taskType
            self.createdAt = createdAt
            self.request = request
            self.label = label
            self.taskDescription = taskDescription
        }
    }

    /// A network task's progress changed.
    public struct NetworkTaskProgressUpdated: Sendable, Codable, Equatable {
        /// The task.
        public var taskID: UUID
        /// Units done so far (bytes for data tasks).
        public var completed: Int64
        /// Units expected in all (-1 when unknown).
        public var total: Int64

        /// Creates the event.
        public init(taskID: UUID, completed: Int64, total: Int64) {
            self.taskID = taskID
            self.completed = completed
            self.total = total
        }
    }

    /// A network task finished, with everything known about it.
    public struct NetworkTaskCompleted: Sendable, Codable, Equatable {
        /// The task.
        public var taskID: UUID
        /// Data, download, upload, stream or WebSocket.
        public var taskType: NetworkTaskType
        /// When it started.
        public var createdAt: Date
        /// How long it took, when known.
        public var duration: TimeInterval?
        /// The request as sent.
        public var request: NetworkRequest
        /// The response, when one arrived.
        public var response: NetworkResponse?
        /// The error it failed with, if any.
        public var error: NetworkError?
        /// The request body (also `request.body` when given there).
        public var requestBody: Data?
        /// The response body.
        public var responseBody: Data?
        /// The response body's size when the body itself is not here (the network logger stops
        /// collecting a body past ``LogStore/Configuration/bodySizeLimit``); `nil`
        /// means `responseBody.count`.
        public var responseBodySize: Int64?
        /// Timings, addresses, protocol, TLS and sizes, when collected.
        public var metrics: NetworkMetrics?
        /// The label of its technical message (`"network"` unless set).
        public var label: String
        /// A description the caller gave the task.
        public var taskDescription: String?
        /// Why decoding the response failed, when the caller reported it.
        public var decodingError: String?
        /// A call this process made (outbound) or a request it handled (inbound); nil when the
        /// completion does not know it (a ``NetworkLogger`` task forgotten before it completed):
        /// the stored task then keeps the direction of its creation, and a task never created
        /// is stored as outbound.
        public var direction: NetworkTaskDirection?
        /// Shared with the task's creation by ``NetworkLogger``: its head is stored once.
        var creationHead = CreationHeadLink()

        private enum CodingKeys: String, CodingKey {
            case taskID, taskType, createdAt, duration, request, response, error, requestBody, responseBody
            case responseBodySize, metrics, label, taskDescription, decodingError, direction
        }

        /// Creates the event.
        public init(
            taskID: UUID, taskType: NetworkTaskType, createdAt: Date, duration: TimeInterval? = nil,
            request: NetworkRequest, response: NetworkResponse?, error: NetworkError?, requestBody: Data?,
            responseBody: Data?, metrics: NetworkMetrics?, label: String, taskDescription: String? = nil,
            decodingError: String? = nil, direction: NetworkTaskDirection? = nil
        ) {
            self.direction = direction
            self.taskID = taskID
            self.taskType = taskType
            self.createdAt = createdAt
            self.duration = duration
            self.request = request
            self.response = response
            self.error = error
            self.requestBody = requestBody
            self.responseBody = responseBody
            self.metrics = metrics
            self.label = label
            self.taskDescription = taskDescription
            self.decodingError = decodingError
        }

        /// Whether the task failed: an error, or a status outside 100..<400.
        public var isFailure: Bool {
            if error != nil { return true }
            guard let status = response?.statusCode else { return false }
            return !(100..<400).contains(status)
        }
    }
}

extension LogStore.Event.NetworkTaskCreated {
    /// Reads the event as its encoding writes it, and as 0.5 wrote it, without `direction`:
    /// such a task is outbound, the only kind 0.5 recorded.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            taskID: try container.decode(UUID.self, forKey: .taskID),
            taskType: try container.decode(NetworkTaskType.self, forKey: .taskType),
            createdAt: try container.decode(Date.self, forKey: .createdAt),
            request: try container.decode(NetworkRequest.self, forKey: .request),
            label: try container.decode(String.self, forKey: .label),
            taskDescription: try container.decodeIfPresent(String.self, forKey: .taskDescription),
            direction: try container.decodeIfPresent(NetworkTaskDirection.self, forKey: .direction) ?? .outbound)
    }
}
