extension Redaction {
    /// The event with every secret this redaction names replaced, in requests, responses,
    /// bodies and metrics; messages pass unchanged. Runs on the writer's thread before bodies
    /// are hashed, before `willHandleEvent`, and before anything is stored or published.
    func redact(_ event: LogStore.Event) -> LogStore.Event {
        switch event {
        case .messageStored, .networkTaskProgressUpdated:
            return event
        case .networkTaskCreated(var created):
            created.request = redact(created.request)
            return .networkTaskCreated(created)
        case .networkTaskCompleted(var completed):
            let requestType = completed.request.headers.first { $0.key.lowercased() == "content-type" }?.value
            // The request's own body is nearly always the task's request body (`storeRequest` and
            // `NetworkLogger` pass the same bytes): redact it once and share the result.
            let requestBody = completed.requestBody.map { redactBody($0, contentType: requestType) }
            let ownBody = completed.request.body
            completed.request.body = nil
            completed.request = redact(completed.request)
            if let ownBody {
                completed.request.body = ownBody == completed.requestBody
                    ? requestBody : redactBody(ownBody, contentType: requestType)
            }
            completed.requestBody = requestBody
            completed.response = completed.response.map { redact($0) }
            completed.responseBody = completed.responseBody.map {
                redactBody($0, contentType: completed.response?.contentType)
            }
            completed.metrics = completed.metrics.map { redact($0) }
            completed.error = completed.error.map { redact($0) }
            return .networkTaskCompleted(completed)
        }
    }
}
