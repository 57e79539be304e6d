public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif
import Synchronization

extension NetworkLogger {
    /// A session whose every task is recorded through this logger: a `URLSession` with a
    /// ``URLSessionRecordingDelegate`` that wraps `delegate`.
    ///
    /// ```swift
    /// let session = logger.makeSession()
    /// let (data, response) = try await session.recordedData(for: request)
    /// ```
    ///
    /// On Linux, run requests with `recordedData(for:)`,
    /// `recordedData(from:)` and `recordedUpload(for:from:)`, or with
    /// delegate-style tasks (`dataTask(with:)` then `resume()`): `URLSession`'s own async methods
    /// and completion-handler tasks reach no session delegate there, so they are not recorded.
    /// As with any session that has a delegate, the session keeps its delegate until it is
    /// invalidated: call `finishTasksAndInvalidate()` when done with it.
    ///
    /// - Parameters:
    ///   - configuration: the session's configuration. Default: `.default`.
    ///   - delegate: the app's own delegate, which gets every callback as before. Default: none.
    ///   - delegateQueue: the queue for delegate calls. Default nil: a serial queue of the session's.
    public func makeSession(
        configuration: URLSessionConfiguration = .default, delegate: (any URLSessionDelegate)? = nil,
        delegateQueue: OperationQueue? = nil
    ) -> URLSession {
        URLSession(configuration: configuration, delegate: recordingDelegate(wrapping: delegate), delegateQueue: delegateQueue)
    }

    /// A delegate that records the tasks of the session it is given to and forwards every
    /// callback to `delegate`: for making the `URLSession` yourself. Give each session its own.
    ///
    /// - Parameter delegate: the app's own delegate; nil when it has none.
    public func recordingDelegate(wrapping delegate: (any URLSessionDelegate)?) -> URLSessionRecordingDelegate {
        URLSessionRecordingDelegate.make(logger: self, wrapping: delegate)
    }
}

extension URLSession {
    /// The delegate recording this session's tasks; nil for a session that is not recorded.
    public var recordingDelegate: URLSessionRecordingDelegate? { delegate as? URLSessionRecordingDelegate }

    /// Loads `request` and records the exchange: what `data(for:)` does, on a session made by
    /// ``NetworkLogger/makeSession(configuration:delegate:delegateQueue:)``.
    ///
    /// It returns what `data(for:)` would — the whole body and the response, after redirects —
    /// and throws the same errors (a `URLError`: `.cannotConnectToHost`, `.timedOut`, …). When
    /// the calling Swift task is cancelled, the request is cancelled and this throws
    /// `URLError(.cancelled)`; the stored task records that error.
    ///
    /// The session's wrapped delegate decides redirects, challenges and body streams for the
    /// request, as it would for `data(for:)`; the response, data and completion go to the
    /// caller, not to it. On a session that is not recorded this is `data(for:)`.
    public func recordedData(for request: URLRequest) async throws -> (Data, URLResponse) {
        guard let recorder = recordingDelegate else { return try await data(for: request) }
        return try await recorder.run(dataTask(with: request), requestBody: request.httpBody)
    }

    /// Loads `url` and records the exchange: `recordedData(for:)` with a GET request.
    public func recordedData(from url: URL) async throws -> (Data, URLResponse) {
        try await recordedData(for: URLRequest(url: url))
    }

    /// Uploads `bodyData` with `request` and records the exchange, the body and the upload's
    /// progress included: what `upload(for:from:)` does, recorded as `recordedData(for:)` is.
    public func recordedUpload(for request: URLRequest, from bodyData: Data) async throws -> (Data, URLResponse) {
        guard let recorder = recordingDelegate else { return try await upload(for: request, from: bodyData) }
        return try await recorder.run(uploadTask(with: request, from: bodyData), requestBody: bodyData)
    }
}

extension URLSessionRecordingDelegate {
    /// Runs `task` (not resumed yet) to its completion for the recorded async API.
    func run(_ task: URLSessionTask, requestBody: Data?) async throws -> (Data, URLResponse) {
        recordCreation(of: task, requestBody: requestBody, isAwaited: true)
        let gate = StartGate()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let isWaiting = recordings.withLock { recordings -> Bool in
                    guard recordings[ObjectIdentifier(task)] != nil else { return false }
                    recordings[ObjectIdentifier(task)]?.continuation = continuation
                    return true
                }
                guard isWaiting else {
                    // Completed before it could be awaited (its session cancelled it from another
                    // thread): its completion found no waiter, so nothing else would resume this.
                    continuation.resume(throwing: task.error ?? URLError(
                        .cancelled, userInfo: [NSLocalizedDescriptionKey: "The task ended before it started."]))
                    return
                }
                if !gate.start(task) {
                    // Cancelled before it started: cancelling the suspended task completes it
                    // with `URLError(.cancelled)` through the delegate, as a running one would
                    // (and as the session's invalidation would, later, were it left suspended).
                    task.cancel()
                }
            }
        } onCancel: {
            gate.cancel(task)
        }
    }
}

/// Orders a task's start and its cancellation, which come from different threads: a cancel
/// before the start means no start; a cancel after it cancels the running task.
private final class StartGate: Sendable {
    private let state = Mutex((isStarted: false, isCancelled: false))

    /// Resumes `task` unless the caller was cancelled first; whether it did.
    func start(_ task: URLSessionTask) -> Bool {
        state.withLock { state in
            guard !state.isCancelled else { return false }
            state.isStarted = true
            // Under the lock, so a cancel cannot reach the task before its resume.
            task.resume()
            return true
        }
    }

    func cancel(_ task: URLSessionTask) {
        let isStarted = state.withLock { state in
            state.isCancelled = true
            return state.isStarted
        }
        if isStarted { task.cancel() }
    }
}
