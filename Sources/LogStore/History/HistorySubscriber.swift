import Synchronization

/// One ``LogStore/historyChanges()`` iteration, handed batches by the merge one at a time: the
/// merge waits until the consumer asks for the next element (or ends) before it counts a batch
/// consumed, so what a consumer was given but did not finish is delivered again.
final class HistorySubscriber: Sendable {
    /// How a delivery ended.
    enum Delivery {
        /// The consumer took the batch and asked for the next: consumed.
        case finished
        /// The consumer took the batch and ended before asking for the next: not consumed.
        case unfinished
        /// The subscription had ended before the consumer took the batch.
        case gone
    }

    private struct State {
        /// A batch the consumer has not taken yet, and the merge waiting on it.
        var offered: (batch: HistoryBatch, merge: CheckedContinuation<Delivery, Never>)?
        /// The merge waiting for the consumer to finish the batch it took.
        var handedOut: CheckedContinuation<Delivery, Never>?
        /// The consumer waiting for a batch.
        var consumer: CheckedContinuation<HistoryBatch?, Never>?
        var isFinished = false
    }

    private let state = Mutex(State())
    /// Tells the merge this subscription ended (it stops offering it batches).
    private let onFinish: @Sendable (HistorySubscriber) -> Void

    init(onFinish: @escaping @Sendable (HistorySubscriber) -> Void) {
        self.onFinish = onFinish
    }

    /// The merge's side: offers `batch` and returns once the consumer finished it, ended
    /// without finishing it, or had ended before.
    func deliver(_ batch: HistoryBatch) async -> Delivery {
        await withCheckedContinuation { (merge: CheckedContinuation<Delivery, Never>) in
            let waiting = state.withLock { state -> CheckedContinuation<HistoryBatch?, Never>?? in
                if state.isFinished { return .none }
                if let consumer = state.consumer {
                    state.consumer = nil
                    state.handedOut = merge
                    return .some(consumer)
                }
                state.offered = (batch, merge)
                return .some(nil)
            }
            switch waiting {
            case .none: merge.resume(returning: .gone)
            case .some(let consumer): consumer?.resume(returning: batch)
            }
        }
    }

    /// The consumer's side: the batch it took before is finished; waits for the next one (nil
    /// once the subscription ended). One call at a time: a second concurrent call returns nil.
    func next() async -> HistoryBatch? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (consumer: CheckedContinuation<HistoryBatch?, Never>) in
                enum Outcome { case wait, hand(HistoryBatch), end, concurrent }
                let (finishedMerge, outcome) = state.withLock {
                    state -> (CheckedContinuation<Delivery, Never>?, Outcome) in
                    if state.consumer != nil { return (nil, .concurrent) }
                    let finishedMerge = state.handedOut
                    state.handedOut = nil
                    if state.isFinished || Task.isCancelled { return (finishedMerge, .end) }
                    if let offered = state.offered {
                        state.offered = nil
                        state.handedOut = offered.merge
                        return (finishedMerge, .hand(offered.batch))
                    }
                    state.consumer = consumer
                    return (finishedMerge, .wait)
                }
                finishedMerge?.resume(returning: .finished)
                switch outcome {
                case .wait: break
                case .hand(let batch): consumer.resume(returning: batch)
                case .concurrent: consumer.resume(returning: nil)
                case .end:
                    finish()
                    consumer.resume(returning: nil)
                }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the subscription: the consumer's iteration ends, and a batch it was given but did
    /// not finish counts as not consumed.
    func finish() {
        let ended = state.withLock { state -> (CheckedContinuation<Delivery, Never>?, CheckedContinuation<Delivery, Never>?, CheckedContinuation<HistoryBatch?, Never>?)? in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            defer {
                state.offered = nil
                state.handedOut = nil
                state.consumer = nil
            }
            return (state.offered?.merge, state.handedOut, state.consumer)
        }
        guard let (offered, handedOut, consumer) = ended else { return }
        onFinish(self)
        offered?.resume(returning: .gone)
        handedOut?.resume(returning: .unfinished)
        consumer?.resume(returning: nil)
    }
}

/// The current author's unseen changes, batch by batch (``LogStore/historyChanges()``).
///
/// A batch counts as consumed when the loop asks for the next one: one the loop was given but
/// left (a `break`, a thrown error, a crash) is delivered again, to this author's observers and
/// hooks too. The merge waits for the loop, so a sequence made and iterated but left waiting
/// between two elements holds this author's merges back until it is released.
public struct HistoryChanges: AsyncSequence, Sendable {
    /// One merge's batch of unseen changes.
    public typealias Element = HistoryBatch

    let subscribe: @Sendable () -> HistorySubscriber?

    /// Subscribes: from here on this iteration is one of the author's consumers.
    public func makeAsyncIterator() -> Iterator {
        Iterator(subscriber: subscribe())
    }

    /// Iterates one subscription; releasing it ends the subscription. One `next()` at a time:
    /// a second call made while one waits returns nil.
    public final class Iterator: AsyncIteratorProtocol, Sendable {
        private let subscriber: HistorySubscriber?

        init(subscriber: HistorySubscriber?) {
            self.subscriber = subscriber
        }

        /// The next batch of unseen changes, once there is one; nil when the store closed.
        public func next() async -> HistoryBatch? {
            await subscriber?.next()
        }

        deinit {
            subscriber?.finish()
        }
    }
}
