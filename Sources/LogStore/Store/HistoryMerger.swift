import Foundation
import Synchronization

/// The current author's consumption of history: one loop per store that, while anyone consumes
/// (an observer, a merge hook, a ``HistoryChanges`` iteration), reads what other authors
/// committed after the cursor, hands it to every consumer, and then advances the cursor in a
/// transaction of its own, followed by the configured cleanup in another.
///
/// It wakes on the store's commit signal: this process's commits, and other processes' through
/// ``DataVersionWatch``, which it keeps running while it runs. It ends when the last consumer
/// goes, and starts again with the next.
final class HistoryMerger: Sendable {
    typealias Observer = @Sendable (HistoryTransaction) async -> Void
    typealias MergeHook = @Sendable (HistoryBatch) async throws -> HistoryMergeHookResult

    private struct RegisteredObserver {
        let id: UUID
        let entity: HistoryEntity?
        let operation: HistoryOperation?
        let callback: Observer

        func matches(_ change: HistoryChange) -> Bool {
            (entity == nil || entity == change.entity) && (operation == nil || operation == change.operation)
        }
    }

    private struct State {
        var observers: [RegisteredObserver] = []
        var hooks: [(id: UUID, callback: MergeHook)] = []
        var subscribers: [HistorySubscriber] = []
        /// Moves on whenever a consumer is added: a round that began before must not move the
        /// cursor past a batch the newcomer never got.
        var additions: UInt64 = 0
        var loop: Task<Void, Never>?
        var isClosed = false

        var hasConsumers: Bool { !observers.isEmpty || !hooks.isEmpty || !subscribers.isEmpty }
    }

    /// The most changes one round reads (a larger transaction is still read whole).
    static let changesPerRound = 1_000
    /// How long a round that failed waits before it tries again, doubling up to the longest.
    static let retryDelay: Duration = .milliseconds(250)
    static let longestRetryDelay: Duration = .seconds(5)

    let configuration: HistoryConfiguration
    let authorID: Int64
    private let core: StoreCore
    private let writer: StoreWriter
    /// The store's clock: the cleanup's schedule reads its dates, the retry waits on its timer
    /// (real time unless a test's clock: a sped-up date source must not hammer a failing hook).
    private let timeSource: LogStore.TimeSource
    private let reportError: (@Sendable (LogStoreError) -> Void)?
    private let state = Mutex(State())

    init(
        configuration: HistoryConfiguration, authorID: Int64, core: StoreCore, writer: StoreWriter,
        timeSource: LogStore.TimeSource, reportError: (@Sendable (LogStoreError) -> Void)?
    ) {
        self.configuration = configuration
        self.timeSource = timeSource
        self.authorID = authorID
        self.core = core
        self.writer = writer
        self.reportError = reportError
    }

    private var isBatchAuthor: Bool { configuration.batchAuthors.contains(configuration.currentAuthor) }

    // MARK: Consumers

    func addObserver(entity: HistoryEntity?, operation: HistoryOperation?, _ callback: @escaping Observer) -> UUID {
        let id = UUID()
        add { $0.observers.append(RegisteredObserver(id: id, entity: entity, operation: operation, callback: callback)) }
        return id
    }

    func removeObserver(id: UUID) {
        state.withLock { $0.observers.removeAll { $0.id == id } }
    }

    func removeAllObservers() {
        state.withLock { $0.observers.removeAll() }
    }

    func addHook(before other: UUID?, _ callback: @escaping MergeHook) -> UUID {
        let id = UUID()
        add { state in
            let index = other.flatMap { other in state.hooks.firstIndex { $0.id == other } } ?? state.hooks.endIndex
            state.hooks.insert((id, callback), at: index)
        }
        return id
    }

    func removeHook(id: UUID) {
        state.withLock { $0.hooks.removeAll { $0.id == id } }
    }

    /// A new ``HistoryChanges`` iteration; nil once the store closed, or for a batch author.
    func subscribe() -> HistorySubscriber? {
        guard !isBatchAuthor else { return nil }
        let subscriber = HistorySubscriber { [weak self] subscriber in
            self?.state.withLock { $0.subscribers.removeAll { $0 === subscriber } }
        }
        var added = false
        add { state in
            guard !state.isClosed else { return }
            state.subscribers.append(subscriber)
            added = true
        }
        return added ? subscriber : nil
    }

    /// Adds a consumer, starts the loop if it is not running (batch authors' stores never do:
    /// they only write), and wakes it: a backlog waiting for the newcomer is read now, not at
    /// the next commit.
    private func add(_ change: (inout State) -> Void) {
        let wakes = state.withLock { state -> Bool in
            change(&state)
            state.additions &+= 1
            guard !state.isClosed, !isBatchAuthor else { return false }
            if state.loop == nil {
                core.commitWatch?.start()
                state.loop = Task.detached { [self] in await run() }
            }
            return true
        }
        if wakes { core.commits.notify() }
    }

    /// Stops the loop for good, ends every iteration, and waits until a round in progress has
    /// stopped (it calls no consumer after this returns).
    func close() async {
        await closeInBackground()?.value
    }

    /// ``close()`` without the wait (for a store released without closing); returns the loop
    /// to wait for.
    @discardableResult
    func closeInBackground() -> Task<Void, Never>? {
        let (loop, subscribers) = state.withLock { state in
            state.isClosed = true
            defer { state.subscribers.removeAll() }
            return (state.loop, state.subscribers)
        }
        loop?.cancel()
        for subscriber in subscribers { subscriber.finish() }
        return loop
    }

    // MARK: The loop

    private enum Round {
        /// Nothing more to read now: wait for a commit.
        case caughtUp
        /// Read on at once: the round hit its limit, or a consumer came during it.
        case more
        /// A consumer failed: deliver the same batch again after a pause.
        case failed
        /// No consumer is left: the loop ends.
        case noConsumers
    }

    /// Whether the merge loop runs (it ends when no consumer is left, and the next one starts it).
    var isLoopRunning: Bool { state.withLock { $0.loop != nil } }

    private var isStopped: Bool { Task.isCancelled || core.commits.isFinished }

    private func run() async {
        defer { core.commitWatch?.stop() }
        var delay = Self.retryDelay
        while !isStopped {
            let generation = core.commits.generation
            let round: Round
            do {
                round = try await merge()
                delay = Self.retryDelay
            } catch {
                if isStopped { return }
                // A hook's own error is its author's; the store's (a read, the cursor's write)
                // goes where the store's write failures go.
                if let error = error as? LogStoreError { reportError?(error) }
                round = .failed
            }
            switch round {
            case .more: continue
            case .caughtUp: await core.commits.wait(after: generation)
            case .noConsumers: return
            case .failed:
                try? await timeSource.timer.sleep(delay)  // cancelled: the loop ends just after
                delay = min(delay * 2, Self.longestRetryDelay)
            }
        }
    }

    private func merge() async throws -> Round {
        let consumers = state.withLock { state -> (additions: UInt64, hasHooks: Bool, hasSubscribers: Bool)? in
            guard state.hasConsumers else {
                // Ends under the lock an addition takes: the next consumer starts a new loop.
                state.loop = nil
                return nil
            }
            return (state.additions, !state.hooks.isEmpty, !state.subscribers.isEmpty)
        }
        guard let consumers else { return .noConsumers }
        // The cursor as stored, read in the same snapshot as what follows it: this process's
        // writer moves it past its own transactions too (``HistoryRecorder``).
        let unseen = try await core.read { [authorID, configuration, directory = core.directory] connection in
            try HistoryReader.unseen(
                after: HistoryAuthors.cursor(authorID, on: connection), authorID: authorID,
                includingOwn: configuration.includesOwnChanges, limit: Self.changesPerRound, on: connection,
                directory: directory)
        }
        guard let unseen else { return .caughtUp }
        let batch = HistoryBatch(transactions: unseen.transactions, gaps: unseen.gaps)
        if !batch.transactions.isEmpty || !batch.gaps.isEmpty {
            guard try await deliver(batch) else { return isStopped ? .caughtUp : .failed }
        }
        // A consumer added meanwhile has not seen this batch: the round is read again for it
        // (the others see it twice: delivery is at least once).
        guard state.withLock({ $0.additions }) == consumers.additions else { return .more }
        // Gaps count as reported once a hook or an iteration had them (observers see changes only).
        let reported = consumers.hasHooks || consumers.hasSubscribers ? unseen.gaps : [:]
        try await advance(to: unseen.through, clearing: reported, counts: !batch.transactions.isEmpty)
        return unseen.hasMore ? .more : .caughtUp
    }

    /// Calls the observers, then the merge hooks, then hands the batch to each iteration.
    ///
    /// - Returns: false when the round must not count (the store is closing, or an iteration
    ///   took the batch and ended before it finished it).
    /// - Throws: what a merge hook threw.
    private func deliver(_ batch: HistoryBatch) async throws -> Bool {
        for transaction in batch.transactions {
            for change in transaction.changes {
                let single = HistoryTransaction(
                    id: transaction.id, author: transaction.author, date: transaction.date, changes: [change])
                // Read afresh before each call: one removed meanwhile is not called again.
                for id in state.withLock({ $0.observers.map(\.id) }) {
                    guard !isStopped else { return false }
                    let observer = state.withLock { state in state.observers.first { $0.id == id } }
                    if let observer, observer.matches(change) { await observer.callback(single) }
                }
            }
        }
        for hook in state.withLock({ $0.hooks }) {
            guard !isStopped else { return false }
            // A throw leaves the cursor where it was: the batch comes again (at least once).
            if try await hook.callback(batch) == .finish { break }
        }
        for subscriber in state.withLock({ $0.subscribers }) {
            guard !isStopped else { return false }
            switch await subscriber.deliver(batch) {
            case .finished, .gone: continue  // one that ended before it was handed the batch just goes
            case .unfinished: return false
            }
        }
        return !isStopped
    }

    /// Moves the cursor past what was consumed and marks its gaps reported, in one transaction;
    /// then cleans up as the strategy asks, in a transaction of its own, so a failed cleanup
    /// (reported) does not undo the merge.
    private func advance(to seq: Int64, clearing gaps: [HistoryEntity: Int], counts: Bool) async throws {
        let cleanup = try await writer.perform(ordered: false) {
            [authorID, configuration, timeSource] writer -> Result<Void, any Error> in
            let merges = try writer.transaction {
                try HistoryAuthors.advance(authorID, to: seq, on: writer.connection, countsMerge: counts)
                try HistoryReader.clear(gaps, authorID: authorID, on: writer.connection)
                return try writer.connection.integer(
                    HistoryTables.mergesSQL, [.integer(authorID)]) ?? 0
            }
            guard counts else { return .success(()) }
            let now = timeSource.now()
            return Result {
                try writer.transaction {
                    switch configuration.cleanStrategy {
                    case .none:
                        return
                    case .everyNMerges(let every):
                        guard merges % Int64(max(1, every)) == 0 else { return }
                    case .byDuration(let interval):
                        if let last = try HistoryCleanup.lastCleanup(on: writer.connection),
                            now.timeIntervalSince(last) < interval.seconds
                        {
                            return
                        }
                    }
                    _ = try HistoryCleanup.clean(
                        required: configuration.requiredAuthors, upTo: HistoryCleanup.changesPerStep,
                        on: writer.connection, at: now)
                }
            }
        }
        if case .failure(let error) = cleanup, let error = LogStoreError(known: error) { reportError?(error) }
    }
}
