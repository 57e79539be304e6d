public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif
import Synchronization

/// A `URLSession` delegate that records every task of its session through a ``NetworkLogger``
/// and passes every callback on, unchanged, to the app's own delegate.
///
/// Make one with ``NetworkLogger/recordingDelegate(wrapping:)`` (or let
/// ``NetworkLogger/makeSession(configuration:delegate:delegateQueue:)`` make the session):
///
/// ```swift
/// let session = URLSession(configuration: .default,
///                          delegate: logger.recordingDelegate(wrapping: myDelegate),
///                          delegateQueue: nil)
/// ```
///
/// What it records, for the delegate-style tasks of its session (`dataTask(with:)`,
/// `uploadTask(with:from:)` and so on, started with `resume()`, no completion handler) and for
/// those run by `URLSession.recordedData(for:)` and its siblings:
/// the request (method, URL, headers, and the body when the request carries it), upload and
/// download progress, the response head and body, each redirect (one transaction per hop in
/// ``NetworkTaskDetails/transactions``), the error, and timings from its own clock —
/// `URLSession` on Linux never delivers `URLSessionTaskMetrics`, so the addresses, protocol and
/// TLS details are not known there.
///
/// Linux has no `didCreateTask` callback, so a task the app starts itself is created in the
/// store at its first callback (its duration then leaves out connecting), unless the app calls
/// ``recordCreation(of:)`` before `resume()`. A task with no callback before its completion (a
/// refused connection) is stored at completion with the error.
///
/// The wrapped delegate sees exactly the callbacks it would see as the session's delegate:
/// where it does not implement a method (its protocol's default runs) or is nil, the
/// completion handlers get the system defaults (follow the redirect, default challenge
/// handling, allow the response, cache as proposed).
///
/// Not recorded on Linux: tasks made with a completion handler, and `URLSession`'s own async
/// methods (`data(for:)`, `upload(for:from:)`): FoundationNetworking sends them no session
/// delegate callbacks at all. Use `URLSession.recordedData(for:)` instead.
// @unchecked Sendable: the only mutable state is `recordings`, guarded by its `Mutex`; the
// logger and the wrapped delegate are immutable and Sendable themselves.
// `recordings` is keyed by the task's address and each entry holds its task, so no task freed
// and replaced at the same address can find another's entry.
public class URLSessionRecordingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// Where the tasks are recorded.
    public let logger: NetworkLogger
    /// The app's own delegate, which gets every callback; nil when the app has none.
    public let wrapped: (any URLSessionDelegate)?
    let recordings = Mutex<[ObjectIdentifier: URLSessionTaskRecording]>([:])

    init(logger: NetworkLogger, wrapping wrapped: (any URLSessionDelegate)?) {
        self.logger = logger
        self.wrapped = wrapped
    }

    /// Records `task` as created now, so that its duration counts from here (call it just before
    /// `resume()`); without it a task is created at its first callback. A second call, or a call
    /// for a task already seen, does nothing.
    ///
    /// The delegate holds the task until it completes. A task recorded and never resumed is
    /// held as long as its session holds it (the session keeps every task it made until the
    /// task completes): cancelling it, or `invalidateAndCancel()` on the session, completes it
    /// and lets it go. So record only tasks of this delegate's own session, whose completion
    /// it sees.
    public func recordCreation(of task: URLSessionTask) {
        recordCreation(of: task, requestBody: nil, isAwaited: false)
    }

    /// The id the task has in the store (``NetworkTaskSummary/id``), while it runs.
    public func taskID(of task: URLSessionTask) -> UUID? {
        recordings.withLock { $0[ObjectIdentifier(task)]?.taskID }
    }

    /// Records the task's creation. `isAwaited` marks the task as run by the recorded async API
    /// also when it is recorded already, so its result cannot go to the wrapped delegate.
    func recordCreation(of task: URLSessionTask, requestBody: Data?, isAwaited: Bool) {
        let created = recordings.withLock { recordings -> URLSessionTaskRecording? in
            let key = ObjectIdentifier(task)
            if recordings[key] != nil {
                if isAwaited { recordings[key]?.isAwaited = true }
                return nil
            }
            var recording = URLSessionTaskRecording(task: task)
            recording.isAwaited = isAwaited
            recordings[key] = recording
            return recording
        }
        guard let created else { return }
        logCreated(task, created, requestBody: requestBody)
    }

    /// Changes the task's recording, creating it (and logging the creation) at the task's first
    /// callback; returns what `change` returns.
    func update<R>(_ task: URLSessionTask, _ change: (inout URLSessionTaskRecording) -> R) -> (UUID, R) {
        let (recording, isNew, result) = recordings.withLock { recordings in
            let key = ObjectIdentifier(task)
            let isNew = recordings[key] == nil
            var recording = recordings[key] ?? URLSessionTaskRecording(task: task)
            let result = change(&recording)
            recordings[key] = recording
            return (recording, isNew, result)
        }
        if isNew { logCreated(task, recording, requestBody: nil) }
        return (recording.taskID, result)
    }

    /// Changes the task's recording when it has one, never creating it: for what can arrive
    /// after the task completed (a completion handler the wrapped delegate calls late), which
    /// must not log the task again as a new, never-ending one. Whether it had one.
    @discardableResult
    func updateIfPresent(_ task: URLSessionTask, _ change: (inout URLSessionTaskRecording) -> Void) -> Bool {
        recordings.withLock { recordings in
            let key = ObjectIdentifier(task)
            guard var recording = recordings.removeValue(forKey: key) else { return false }
            change(&recording)
            recordings[key] = recording
            return true
        }
    }

    /// Whether the task is awaited through the recorded async API (its response, data and
    /// completion are not the wrapped delegate's).
    func isAwaited(_ task: URLSessionTask) -> Bool {
        recordings.withLock { $0[ObjectIdentifier(task)]?.isAwaited ?? false }
    }

    private func logCreated(_ task: URLSessionTask, _ recording: URLSessionTaskRecording, requestBody: Data?) {
        var request = (task.originalRequest ?? task.currentRequest).map(NetworkRequest.init) ?? NetworkRequest()
        if let requestBody { request.body = requestBody }
        logger.logTaskCreated(
            taskID: recording.taskID, type: NetworkTaskType(task), request: request, createdAt: recording.startDate,
            taskDescription: task.taskDescription)
    }

    /// The task ended: logs its metrics and completion, and resumes its waiter, if any.
    func complete(_ task: URLSessionTask, error: (any Error)?) {
        // Created here when no earlier callback came (a refused connection, a cancel).
        _ = update(task) { _ in () }
        let now = ContinuousClock.now
        guard var recording = recordings.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) }) else { return }
        let response = task.response ?? recording.response
        if response != nil {
            recording.endHop(request: task.currentRequest, response: response, at: now)
        }
        if !recording.hasSystemMetrics {
            logger.logMetrics(taskID: recording.taskID, metrics: recording.metrics(at: now))
        }
        logger.logTaskCompleted(
            taskID: recording.taskID, response: response.map(NetworkResponse.init), error: error,
            completedAt: recording.date(at: now))
        guard let continuation = recording.continuation else { return }
        if let error {
            continuation.resume(throwing: error)
        } else if let response {
            continuation.resume(returning: (recording.data, response))
        } else {
            continuation.resume(throwing: URLError(.badServerResponse))
        }
    }

    /// A delegate for `wrapped`: one that also forwards the download callbacks when `wrapped`
    /// takes them (the session looks for a download delegate by a cast, so only such a
    /// delegate may claim to be one).
    static func make(logger: NetworkLogger, wrapping wrapped: (any URLSessionDelegate)?) -> URLSessionRecordingDelegate {
        if wrapped is any URLSessionDownloadDelegate {
            return URLSessionRecordingDownloadDelegate(logger: logger, wrapping: wrapped)
        }
        return URLSessionRecordingDelegate(logger: logger, wrapping: wrapped)
    }
}
