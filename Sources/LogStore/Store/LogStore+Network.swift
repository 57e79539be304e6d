public import Foundation

extension LogStore {
    /// Stores a finished network exchange in one call. Never waits for disk, like
    /// ``storeMessage(createdAt:label:level:message:metadata:file:function:line:)``; secrets are
    /// redacted (``Configuration/redaction``) before anything is stored or published.
    ///
    /// ```swift
    /// store.storeRequest(NetworkRequest(url: url, method: "GET", headers: ["Authorization": token]),
    ///                    response: NetworkResponse(url: url, statusCode: 200), error: nil, data: body)
    /// ```
    ///
    /// - Parameters:
    ///   - request: the request (its `body` is the request body).
    ///   - response: the response, when one arrived.
    ///   - error: the error the exchange failed with.
    ///   - data: the response body.
    ///   - metrics: timings, addresses, protocol, TLS and sizes, when collected.
    ///   - label: the label of its technical message. Default: `"network"`.
    ///   - taskDescription: a description of the task.
    ///   - taskType: data (default), download, upload, stream or WebSocket.
    ///   - createdAt: when it started; default: the start of `metrics`' interval, or now.
    ///   - direction: ``NetworkTaskDirection/outbound`` (default) for a call this process made,
    ///     ``NetworkTaskDirection/inbound`` for a request it handled (`request` is what the
    ///     client sent, `response` and `data` what this process answered).
    public nonisolated func storeRequest(
        _ request: NetworkRequest,
        response: NetworkResponse?,
        error: (any Swift.Error)?,
        data: Data?,
        metrics: NetworkMetrics? = nil,
        label: String = "network",
        taskDescription: String? = nil,
        taskType: NetworkTaskType = .data,
        createdAt: Date? = nil,
        direction: NetworkTaskDirection = .outbound
    ) {
        guard core.isWritable else { return }
        let start = createdAt ?? metrics?.taskInterval?.start ?? Date()
        core.ingest(.networkTaskCompleted(.init(
            taskID: UUID.random(), taskType: taskType, createdAt: start, duration: metrics?.taskInterval?.duration,
            request: request, response: response, error: error.map { NetworkError($0) }, requestBody: request.body,
            responseBody: data, metrics: metrics, label: label, taskDescription: taskDescription,
            direction: direction)))
    }
}
