import Foundation
import LogStore

/// Two recorded GETs over new TLS connections, for the timelines of the exported page, the
/// console's API and its page: one answered after 45 ms, one that sent its request in 1 ms and
/// then gave up after 10 s without a response (as a `URLSession` timeout ends).
enum TaskTimelineFixture {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)
    static func at(_ milliseconds: Double) -> Date { start.addingTimeInterval(milliseconds / 1000) }
    static let timedOutID = UUID(uuidString: "00000000-0000-4000-8000-00000000000a")!
    static let answeredID = UUID(uuidString: "00000000-0000-4000-8000-00000000000b")!

    /// Records both tasks into `store` and flushes it. Times in ms from ``start``: DNS 0–2,
    /// connect 2–9 (TLS 4–9), request 9–10, then the first byte at 40 and the last at 45 (the task
    /// ends at 50), or no response and the task's end at 10,010.
    /// The timed-out task's timeline rows (`phase|duration|class`) as `logstore task` shows it:
    /// the request took 1 ms, then 10,000 ms of waiting that no response ended, and no Total
    /// (the transaction has no end of its own). The export page and the console both draw this.
    static let timedOutTimeline = [
        "DNS|2.0 ms|bar-line", "Connect|2.0 ms|bar-line", "TLS|5.0 ms|bar-line", "Request|1.0 ms|bar-line",
        "Waiting|10,000 ms, no response|bar-line no-response",
    ]

    static func record(_ store: LogStore) async throws {
        let logger = NetworkLogger(store: store)
        for (id, answered) in [(answeredID, true), (timedOutID, false)] {
            let url = URL(string: "https://cache.example.com/\(answered ? "fast" : "slow")")
            let request = NetworkRequest(url: url, method: "GET")
            let response = answered ? NetworkResponse(url: url, statusCode: 200) : nil
            let end = answered ? at(50) : at(10_010)
            logger.logTaskCreated(taskID: id, request: request, createdAt: at(0))
            let transaction = NetworkTransactionMetrics(
                fetchType: .networkLoad, request: request, response: response, fetchStart: at(0),
                domainLookupStart: at(0), domainLookupEnd: at(2), connectStart: at(2), connectEnd: at(9),
                secureConnectionStart: at(4), secureConnectionEnd: at(9), requestStart: at(9),
                requestEnd: at(10), responseStart: answered ? at(40) : nil, responseEnd: answered ? at(45) : nil)
            logger.logMetrics(taskID: id, metrics: NetworkMetrics(
                taskInterval: DateInterval(start: at(0), end: end), transactions: [transaction]))
            logger.logTaskCompleted(
                taskID: id, response: response,
                error: answered ? nil : URLError(.timedOut), completedAt: end)
        }
        try await store.flush()
    }
}
