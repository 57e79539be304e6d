import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a recording delegate knows about one task between its first callback and its
/// completion: its store id, its own clock (Linux delivers no `URLSessionTaskMetrics`), the hops
/// it followed, and, for a task awaited through the recorded async API, the body and the waiter.
struct URLSessionTaskRecording {
    /// Progress is logged at most every this many bytes (or every sixteenth of the total, when
    /// that is larger), so a large body's hundreds of 16 KiB chunks make a handful of events.
    static let progressStep: Int64 = 64 << 10

    /// The task itself, held while it is recorded: the recordings are keyed by its address,
    /// which no other task can take while this one lives.
    let task: URLSessionTask
    let taskID: UUID
    let startDate: Date
    let start: ContinuousClock.Instant
    /// When the current hop (the first request, or the request a redirect led to) began.
    var hopStart: ContinuousClock.Instant
    var transactions: [NetworkTransactionMetrics] = []
    var redirectCount = 0
    var responseStart: ContinuousClock.Instant?
    var receivedBytes: Int64 = 0
    /// ``receivedBytes`` when the current hop began.
    var hopReceivedBytes: Int64 = 0
    var receivedBytesLogged: Int64 = 0
    var sentBytesLogged: Int64 = 0
    /// Set when the platform delivered its own metrics (Apple platforms): ours are not needed.
    var hasSystemMetrics = false

    /// Whether the task runs under `recordedData(for:)` or a sibling: its response
    /// and data go to the waiter, not to the wrapped delegate.
    var isAwaited = false
    var response: URLResponse?
    var data = Data()
    var continuation: CheckedContinuation<(Data, URLResponse), any Error>?

    init(task: URLSessionTask, taskID: UUID = UUID.random(), now: ContinuousClock.Instant = .now, date: Date = Date()) {
        self.task = task
        self.taskID = taskID
        self.start = now
        self.startDate = date
        self.hopStart = now
    }

    /// The wall-clock date of `instant`, measured from the task's start on the monotonic clock,
    /// so a clock step during the task does not bend its duration.
    func date(at instant: ContinuousClock.Instant) -> Date {
        let elapsed = instant - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return startDate.addingTimeInterval(seconds)
    }

    /// Whether `completed` of `total` bytes is far enough past `logged` to be worth an event.
    static func isProgressDue(completed: Int64, total: Int64, logged: Int64) -> Bool {
        if total > 0, completed >= total { return completed > logged }
        return completed - logged >= max(progressStep, total / 16)
    }

    /// One transaction for the hop that just ended with `response`.
    mutating func endHop(request: URLRequest?, response: URLResponse?, at now: ContinuousClock.Instant) {
        var head = request.map(NetworkRequest.init)
        head?.body = nil
        transactions.append(NetworkTransactionMetrics(
            fetchType: .networkLoad, request: head, response: response.map(NetworkResponse.init),
            fetchStart: date(at: hopStart), responseStart: responseStart.map(date(at:)), responseEnd: date(at: now),
            responseBodyBytes: receivedBytes - hopReceivedBytes))
        hopStart = now
        hopReceivedBytes = receivedBytes
        responseStart = nil
    }

    /// The metrics from the task's own clock: its interval and one transaction per hop.
    func metrics(at now: ContinuousClock.Instant) -> NetworkMetrics {
        NetworkMetrics(
            taskInterval: DateInterval(start: startDate, end: date(at: now)), redirectCount: redirectCount,
            transactions: transactions)
    }
}
