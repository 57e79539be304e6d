public import Foundation

extension NetworkTransactionMetrics {
    /// One phase of a transaction's timeline, as `logstore task` and the HTML export draw it.
    ///
    /// Both read phases from ``NetworkTransactionMetrics/phases(taskEnd:)``, so the terminal and
    /// the page agree on what a phase spans: above all, a request that got no answer (a timeout,
    /// a reset) shows the time spent *waiting* for it, up to the task's end.
    public struct Phase: Sendable, Hashable {
        /// Which part of the transaction a phase is, in the order they happen.
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            /// The DNS lookup.
            case dns = "DNS"
            /// Opening the connection, up to the start of its TLS handshake (or its end without TLS).
            case connect = "Connect"
            /// The TLS handshake.
            case tls = "TLS"
            /// Sending the request, first byte to last.
            case request = "Request"
            /// From the request's last byte to the response's first (the server's time, and the
            /// round trip); to the task's end when no response came.
            case waiting = "Waiting"
            /// Receiving the response, first byte to last.
            case response = "Response"

            /// The name the CLI and the page show: `"DNS"`, `"Connect"`, `"TLS"`, `"Request"`,
            /// `"Waiting"`, `"Response"`.
            public var name: String { rawValue }
        }

        /// Which phase this is.
        public var kind: Kind
        /// When it began.
        public var start: Date
        /// When it ended; nil when it began and never finished (or its recorded end is before
        /// its start).
        public var end: Date?
        /// Whether this is a ``Kind/waiting`` phase that no response ended: it ends when the task
        /// did (it timed out or failed while waiting).
        public var endsWithoutResponse: Bool

        /// Creates a phase.
        public init(kind: Kind, start: Date, end: Date?, endsWithoutResponse: Bool = false) {
            self.kind = kind
            self.start = start
            self.end = end
            self.endsWithoutResponse = endsWithoutResponse
        }

        /// How long it took; nil when it never finished.
        public var duration: TimeInterval? { end.map { $0.timeIntervalSince(start) } }
    }

    /// The phases that began, in order: DNS, Connect, TLS, Request, Waiting, Response.
    ///
    /// A phase that never began (no DNS lookup on a reused connection, no TLS for `http:`) is
    /// left out. When the request was sent and no response came, the waiting phase ends at
    /// `taskEnd` and says so (``Phase/endsWithoutResponse``): a request that timed out after
    /// 10 s shows 10 s of waiting, not a 1 ms request and nothing else.
    ///
    /// ```swift
    /// let end = task.duration.map { task.createdAt.addingTimeInterval($0) }
    /// for phase in transaction.phases(taskEnd: end) {
    ///     print(phase.kind.name, phase.duration ?? .nan, phase.endsWithoutResponse ? "no response" : "")
    /// }
    /// ```
    ///
    /// - Parameter taskEnd: When the task completed (its creation plus its duration); nil while
    ///   it is pending, and then a request without a response is still waiting (no end).
    public func phases(taskEnd: Date?) -> [Phase] {
        // Waiting ends at the response's first byte; with no response at all, at the task's end
        // (the moment the client gave up). A response head without a first-byte time is an
        // incomplete record, not a timeout: that phase stays unfinished.
        let waitingEnd = responseStart ?? (requestEnd != nil && response == nil ? taskEnd : nil)
        let spans: [(Phase.Kind, Date?, Date?)] = [
            (.dns, domainLookupStart, domainLookupEnd),
            // connectEnd includes the TLS handshake: Connect stops where TLS starts, so the two
            // bars do not overlap.
            (.connect, connectStart, secureConnectionStart ?? connectEnd),
            (.tls, secureConnectionStart, secureConnectionEnd),
            (.request, requestStart, requestEnd),
            (.waiting, requestEnd, waitingEnd),
            (.response, responseStart, responseEnd),
        ]
        return spans.compactMap { kind, start, end in
            guard let start else { return nil }
            let finished = end.flatMap { $0 >= start ? $0 : nil }
            return Phase(kind: kind, start: start, end: finished,
                         endsWithoutResponse: kind == .waiting && responseStart == nil && finished != nil)
        }
    }
}
