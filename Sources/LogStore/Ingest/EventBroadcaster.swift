import Foundation
import Synchronization

/// Fans committed events out to every ``LogStore/events`` subscriber.
final class EventBroadcaster: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<LogStore.Event>.Continuation]>([:])

    /// A new stream that receives every event committed from now on, until it is dropped or the
    /// store closes.
    func subscribe() -> AsyncStream<LogStore.Event> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<LogStore.Event>.makeStream(bufferingPolicy: .bufferingNewest(100_000))
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    var hasSubscribers: Bool {
        subscribers.withLock { !$0.isEmpty }
    }

    func publish(_ events: [LogStore.Event]) {
        let continuations = subscribers.withLock { Array($0.values) }
        for continuation in continuations {
            for event in events { continuation.yield(event) }
        }
    }

    /// Ends every stream (the store closed).
    func finish() {
        let continuations = subscribers.withLock { subscribers in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
