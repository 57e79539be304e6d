public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

// Every callback records what it tells, then goes to the wrapped delegate. A wrapped delegate
// that does not implement a method runs its protocol's default, which completes the handler
// with the system default; with no wrapped delegate (or one of a narrower protocol) the
// handler gets that default here.

extension URLSessionRecordingDelegate {
    var taskDelegate: (any URLSessionTaskDelegate)? { wrapped as? any URLSessionTaskDelegate }
    var dataDelegate: (any URLSessionDataDelegate)? { wrapped as? any URLSessionDataDelegate }

    // MARK: URLSessionDelegate

    /// Forwarded to the wrapped delegate.
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        wrapped?.urlSession(session, didBecomeInvalidWithError: error)
    }

    /// Forwarded to the wrapped delegate; default handling without one.
    public func urlSession(
        _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @Sendable @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let wrapped else { return completionHandler(.performDefaultHandling, nil) }
        wrapped.urlSession(session, didReceive: challenge, completionHandler: completionHandler)
    }

    // MARK: URLSessionTaskDelegate

    /// Records the redirect (a transaction for the hop that ended, and the redirect count
    /// when it is followed), then asks the wrapped delegate; followed by default. An answer
    /// that comes after the task ended (cancelled while the wrapped delegate decided) is dropped.
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @Sendable @escaping (URLRequest?) -> Void
    ) {
        let now = ContinuousClock.now
        let previous = task.currentRequest
        _ = update(task) { $0.endHop(request: previous, response: response, at: now) }
        let recorded: @Sendable (URLRequest?) -> Void = { [self] next in
            // The wrapped delegate may answer after the task ended (cancelled meanwhile): its
            // record is gone then, and must not come back as a new task that never completes.
            let isRunning = updateIfPresent(task) { if next != nil { $0.redirectCount += 1 } }
            // Nobody waits for that late answer, and FoundationNetworking traps on one ("not
            // waiting for it"): drop it.
            guard isRunning else { return }
            completionHandler(next)
        }
        guard let taskDelegate else { return recorded(request) }
        taskDelegate.urlSession(
            session, task: task, willPerformHTTPRedirection: response, newRequest: request, completionHandler: recorded)
    }

    /// Forwarded to the wrapped delegate; default handling without one.
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @Sendable @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let taskDelegate else { return completionHandler(.performDefaultHandling, nil) }
        taskDelegate.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
    }

    /// Forwarded to the wrapped delegate; no stream without one.
    public func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @Sendable @escaping (InputStream?) -> Void
    ) {
        guard let taskDelegate else { return completionHandler(nil) }
        taskDelegate.urlSession(session, task: task, needNewBodyStream: completionHandler)
    }

    /// Records upload progress, then forwards (not for a task the recorded async API awaits).
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        let (taskID, isDue) = update(task) { recording -> Bool in
            let isDue = URLSessionTaskRecording.isProgressDue(
                completed: totalBytesSent, total: totalBytesExpectedToSend, logged: recording.sentBytesLogged)
            if isDue { recording.sentBytesLogged = totalBytesSent }
            return isDue
        }
        if isDue { logger.logProgress(taskID: taskID, completed: totalBytesSent, total: totalBytesExpectedToSend) }
        guard !isAwaited(task) else { return }
        taskDelegate?.urlSession(
            session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
            totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    /// Records the completion (response, body, error, timings), then forwards (not for a task the
    /// recorded async API awaits: its caller gets the result).
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let awaited = isAwaited(task)
        complete(task, error: error)
        guard !awaited else { return }
        taskDelegate?.urlSession(session, task: task, didCompleteWithError: error)
    }

    /// Forwarded to the wrapped delegate, whose default is to start the request as it is.
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, willBeginDelayedRequest request: URLRequest,
        completionHandler: @Sendable @escaping (URLSession.DelayedRequestDisposition, URLRequest?) -> Void
    ) {
        guard let taskDelegate else { return completionHandler(.continueLoading, nil) }
        taskDelegate.urlSession(session, task: task, willBeginDelayedRequest: request, completionHandler: completionHandler)
    }

    /// Records the platform's metrics where it delivers them (Apple platforms; never on Linux),
    /// then forwards.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        let (taskID, _) = update(task) { $0.hasSystemMetrics = true }
        logger.logMetrics(taskID: taskID, metrics: NetworkMetrics(metrics))
        taskDelegate?.urlSession(session, task: task, didFinishCollecting: metrics)
    }

    // MARK: URLSessionDataDelegate

    /// Records the response head, then asks the wrapped delegate; allowed by default.
    public func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @Sendable @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let now = ContinuousClock.now
        let (_, awaited) = update(dataTask) { recording -> Bool in
            recording.responseStart = now
            recording.response = response
            return recording.isAwaited
        }
        guard !awaited, let dataDelegate else { return completionHandler(.allow) }
        dataDelegate.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
    }

    /// Forwarded to the wrapped delegate.
    public func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didBecome downloadTask: URLSessionDownloadTask
    ) {
        dataDelegate?.urlSession(session, dataTask: dataTask, didBecome: downloadTask)
    }

    /// Forwarded to the wrapped delegate.
    public func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didBecome streamTask: URLSessionStreamTask
    ) {
        dataDelegate?.urlSession(session, dataTask: dataTask, didBecome: streamTask)
    }

    /// Records the chunk (the body, and download progress now and then), then forwards (not for
    /// a task the recorded async API awaits: the chunk goes to its result).
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // `countOfBytesReceived` stays 0 for data tasks on Linux: count the chunks.
        let total = dataTask.countOfBytesExpectedToReceive
        let (taskID, (progress, awaited)) = update(dataTask) { recording -> (Int64?, Bool) in
            recording.receivedBytes += Int64(data.count)
            if recording.isAwaited { recording.data.append(data) }
            let received = recording.receivedBytes
            guard URLSessionTaskRecording.isProgressDue(
                completed: received, total: total, logged: recording.receivedBytesLogged)
            else { return (nil, recording.isAwaited) }
            recording.receivedBytesLogged = received
            return (received, recording.isAwaited)
        }
        logger.logDataReceived(taskID: taskID, data: data)
        if let progress { logger.logProgress(taskID: taskID, completed: progress, total: total) }
        guard !awaited else { return }
        dataDelegate?.urlSession(session, dataTask: dataTask, didReceive: data)
    }

    /// Forwarded to the wrapped delegate; cached as proposed without one.
    public func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @Sendable @escaping (CachedURLResponse?) -> Void
    ) {
        guard let dataDelegate else { return completionHandler(proposedResponse) }
        dataDelegate.urlSession(
            session, dataTask: dataTask, willCacheResponse: proposedResponse, completionHandler: completionHandler)
    }
}
