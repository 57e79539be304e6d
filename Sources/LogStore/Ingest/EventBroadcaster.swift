import Foundation
import Synchronization

/// Fans committed events out to every ``LogStore/events`` subscriber.
final class EventBroadcaster: Sendable {
    /// `nil` once the store closed: later subscribers get a stream that has already ended.
    private let subscribers = Mutex<[UUID: AsyncStream<LogStore.Event>.Continuation]?>([:])

    /// A new stream that receives every event committed from now on, until it is dropped or the
    /// store closes (after the store closed, a stream that ends at once).
    func subscribe() -> AsyncStream<LogStore.Event> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<LogStore.Event>.makeStream(bufferingPolicy: .bufferingNewest(100_000))
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

    func publish(_ events: [LogStore.Event]) {
        let continuations = subscribers.withLock { Array(($0 ?? [:]).values) }
        for continuation in continuations {
            for event in events { continuation.yield(event) }
        }
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
