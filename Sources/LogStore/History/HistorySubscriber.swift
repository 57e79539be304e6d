import Synchronization

/// One ``LogStore/historyChanges()`` iteration, handed batches by the merge one at a time: the
/// merge waits until the consumer asks for the next element (or ends) before it counts a batch
/// consumed, so what a consumer was given but did not finish is delivered again.
final class HistorySubscriber: Sendable {
    private struct State {
        /// A batch the consumer has not taken yet, and the merge waiting on it.
        var offered: (batch: HistoryBatch, merge: CheckedContinuation<Bool, Never>)?
        /// The merge waiting for the consumer to finish the batch it took.
        var handedOut: CheckedContinuation<Bool, Never>?
        /// The consumer waiting for a batch.
        var consumer: CheckedContinuation<HistoryBatch?, Never>?
        var isFinished = false
    }

    private let state = Mutex(State())

    /// The merge's side: offers `batch` and returns once the consumer finished it (`true`) or
    /// ended without finishing it (`false`).
    func deliver(_ batch: HistoryBatch) async -> Bool {
        await withCheckedContinuation { (merge: CheckedContinuation<Bool, Never>) in
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
            case .none: merge.resume(returning: false)
            case .some(let consumer): consumer?.resume(returning: batch)
            }
        }
    }

    /// The consumer's side: the batch it took before is finished; waits for the next one (nil
    /// once the subscription ended).
    func next() async -> HistoryBatch? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (consumer: CheckedContinuation<HistoryBatch?, Never>) in
                let (finishedMerge, batch, ended) = state.withLock {
                    state -> (CheckedContinuation<Bool, Never>?, HistoryBatch?, Bool) in
                    let finishedMerge = state.handedOut
                    state.handedOut = nil
                    if state.isFinished || Task.isCancelled { return (finishedMerge, nil, true) }
                    if let offered = state.offered {
                        state.offered = nil
                        state.handedOut = offered.merge
                        return (finishedMerge, offered.batch, false)
                    }
                    state.consumer = consumer
                    return (finishedMerge, nil, false)
                }
                finishedMerge?.resume(returning: true)
                if ended {
                    finish()
                    consumer.resume(returning: nil)
                } else if let batch {
                    consumer.resume(returning: batch)
                }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the subscription: the consumer's iteration ends, and a batch it was given but did
    /// not finish counts as not consumed.
    func finish() {
        let (offered, handedOut, consumer) = state.withLock { state in
            state.isFinished = true
            defer {
                state.offered = nil
                state.handedOut = nil
                state.consumer = nil
            }
            return (state.offered?.merge, state.handedOut, state.consumer)
        }
        offered?.resume(returning: false)
        handedOut?.resume(returning: false)
        consumer?.resume(returning: nil)
    }
}

/// The current author's unseen changes, batch by batch (``LogStore/historyChanges()``).
///
/// A batch counts as consumed when the loop asks for the next one: one the loop was given but
/// left (a `break`, a thrown error, a crash) is delivered again, to this author's observers and
/// hooks too. The merge waits for the loop, so a sequence made and never iterated holds this
/// author's merges back until it is released.
public struct HistoryChanges: AsyncSequence, Sendable {
    public typealias Element = HistoryBatch

    let subscribe: @Sendable () -> HistorySubscriber?

    /// Subscribes: from here on this iteration is one of the author's consumers.
    public func makeAsyncIterator() -> Iterator {
        Iterator(subscriber: subscribe())
    }

    /// Iterates one subscription; releasing it ends the subscription.
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
