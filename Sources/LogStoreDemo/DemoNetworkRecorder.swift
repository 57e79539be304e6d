import Foundation
import LogStore

/// Records the demo's tasks in an open store through the public API: the whole
/// ``NetworkLogger`` lifecycle (created, progress, data in chunks, metrics, decoding error,
/// completed) for some, one `storeRequest` call for the others.
struct DemoNetworkRecorder {
    let store: LogStore
    /// One logger per label (a logger's label is its tasks' technical message label).
    private var loggers: [String: NetworkLogger] = [:]

    /// Response bodies arrive in chunks of at most this size, as a client reads them.
    static let chunkSize = 256 * 1024
    /// The bytes of a body streamed past the size limit (only their count is stored).
    private static let filler = Data(count: 1 << 20)

    init(store: LogStore) {
        self.store = store
    }

    mutating func record(_ task: DemoTask) {
        guard task.usesLogger else {
            store.storeRequest(
                task.request, response: task.response, error: task.error, data: task.responseBody, metrics: task.metrics,
                label: task.label, taskDescription: task.taskDescription, taskType: task.type, createdAt: task.createdAt)
            return
        }
        let logger = logger(task.label)
        let id = task.id
        logger.logTaskCreated(
            taskID: id, type: task.type, request: task.request, createdAt: task.createdAt, taskDescription: task.taskDescription)
        if task.type == .upload, let body = task.request.body {
            let total = Int64(body.count)
            for step in 1...4 { logger.logProgress(taskID: id, completed: total * Int64(step) / 4, total: total) }
        }
        let expected = task.streamedSize ?? task.responseBody?.count ?? 0
        if task.isPending {
            // Still downloading when the session ends.
            if task.type == .download { logger.logProgress(taskID: id, completed: Int64(expected) * 37 / 100, total: Int64(expected)) }
            return
        }
        let reportsProgress = task.type == .download
        if let streamed = task.streamedSize {
            var received = 0
            while received < streamed {
                let count = min(Self.filler.count, streamed - received)
                logger.logDataReceived(taskID: id, data: count == Self.filler.count ? Self.filler : Self.filler.prefix(count))
                received += count
                if reportsProgress { logger.logProgress(taskID: id, completed: Int64(received), total: Int64(streamed)) }
            }
        } else if let body = task.responseBody {
            var offset = 0
            while offset < body.count {
                let end = min(body.count, offset + Self.chunkSize)
                logger.logDataReceived(taskID: id, data: body.count <= Self.chunkSize ? body : body.subdata(in: offset..<end))
                offset = end
                if reportsProgress { logger.logProgress(taskID: id, completed: Int64(offset), total: Int64(body.count)) }
            }
        }
        if let metrics = task.metrics { logger.logMetrics(taskID: id, metrics: metrics) }
        if let decodingError = task.decodingError { logger.logDecodingError(taskID: id, error: decodingError) }
        logger.logTaskCompleted(
            taskID: id, response: task.response, error: task.error, completedAt: task.createdAt.addingTimeInterval(task.duration))
    }

    private mutating func logger(_ label: String) -> NetworkLogger {
        if let logger = loggers[label] { return logger }
        let logger = NetworkLogger(store: store, label: label)
        loggers[label] = logger
        return logger
    }
}
