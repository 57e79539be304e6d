import Foundation
import Synchronization

/// Fans committed events out to every ``LogStore/subscribeEvents()`` subscriber.
///
/// Each subscriber has its own buffer of ``LogStore/eventSubscriberBufferLimit`` events: a
/// subscriber that does not keep up loses the oldest events of its buffer, never blocks the
/// writer and never grows without bound; the losses are counted (``droppedCount``,
/// ``LogStore/Info/droppedSubscriberEventCount``).
final class EventBroadcaster: Sendable {
    /// `nil` once the store closed: later subscribers get a stream that has already ended.
    private let subscribers = Mutex<[UUID: AsyncStream<LogStore.Event>.Continuation]?>([:])
    private let dropped = Atomic<Int>(0)
    private let limit: Int

    init(limit: Int = LogStore.eventSubscriberBufferLimit) {
        self.limit = max(1, limit)
    }

    /// A new stream that receives every event committed from now on, until it is dropped or the
    /// store closes (after the store closed, a stream that ends at once).
    func subscribe() -> AsyncStream<LogStore.Event> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<LogStore.Event>.makeStream(bufferingPolicy: .bufferingNewest(limit))
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0?.removeValue(forKey: id) }
        }
        let isOpen = subscribers.withLock { subscribers -> Bool in
            guard subscribers != nil else { return false }
            subscribers?[id] = continuation
            return true
        }
        if !isOpen { continuation.finish() }
        return stream
    }

    var hasSubscribers: Bool {
        subscribers.withLock { !($0?.isEmpty ?? true) }
    }

    /// Events dropped from subscribers' full buffers since the store opened.
    var droppedCount: Int { dropped.load(ordering: .relaxed) }

    func publish(_ events: [LogStore.Event]) {
        let continuations = subscribers.withLock { Array(($0 ?? [:]).values) }
        var droppedNow = 0
        for continuation in continuations {
            for event in events {
                if case .dropped = continuation.yield(event) { droppedNow += 1 }
            }
        }
        if droppedNow > 0 { dropped.add(droppedNow, ordering: .relaxed) }
    }

    /// Ends every stream (the store closed).
    func finish() {
        let continuations = subscribers.withLock { subscribers in
            defer { subscribers = nil }
            return Array((subscribers ?? [:]).values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
