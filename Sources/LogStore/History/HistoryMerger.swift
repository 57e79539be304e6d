import Foundation
import Synchronization

/// The current author's consumption of history: one loop per store that, while anyone consumes
/// (an observer, a merge hook, a ``HistoryChanges`` iteration), reads what other authors
/// committed after the cursor, hands it to every consumer, and then advances the cursor in a
/// transaction of its own, followed by the configured cleanup.
///
/// It wakes on the store's commit signal: this process's commits, and other processes' through
/// ``DataVersionWatch``, which it keeps running while it runs.
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
        var subscribers: [(id: UUID, subscriber: HistorySubscriber)] = []
        var loop: Task<Void, Never>?
        var isClosed = false

        var hasConsumers: Bool { !observers.isEmpty || !hooks.isEmpty || !subscribers.isEmpty }
    }

    /// The most changes one round reads (a larger transaction is still read whole).
    static let changesPerRound = 1_000
    /// How long a round whose hook threw waits before it delivers the batch again.
    static let retryDelay: Duration = .milliseconds(250)
    /// Own changes alone move the cursor at most this often (each move is a transaction).
    static let ownChangesAdvanceInterval: Duration = .seconds(5)

    let configuration: HistoryConfiguration
    let authorID: Int64
    private let core: StoreCore
    private let writer: StoreWriter
    private let state = Mutex(State())

    init(configuration: HistoryConfiguration, authorID: Int64, core: StoreCore, writer: StoreWriter) {
        self.configuration = configuration
        self.authorID = authorID
        self.core = core
        self.writer = writer
    }

    // MARK: Consumers

    func addObserver(entity: HistoryEntity?, operation: HistoryOperation?, _ callback: @escaping Observer) -> UUID {
        let id = UUID()
        changeConsumers { $0.observers.append(RegisteredObserver(id: id, entity: entity, operation: operation, callback: callback)) }
        return id
    }

    func removeObserver(id: UUID) {
        changeConsumers { $0.observers.removeAll { $0.id == id } }
    }

    func removeAllObservers() {
        changeConsumers { $0.observers.removeAll() }
    }

    func addHook(before other: UUID?, _ callback: @escaping MergeHook) -> UUID {
        let id = UUID()
        changeConsumers { state in
            let index = other.flatMap { other in state.hooks.firstIndex { $0.id == other } } ?? state.hooks.endIndex
            state.hooks.insert((id, callback), at: index)
        }
        return id
    }

    func removeHook(id: UUID) {
        changeConsumers { $0.hooks.removeAll { $0.id == id } }
    }

    /// A new ``HistoryChanges`` iteration; nil once the store closed.
    func subscribe() -> HistorySubscriber? {
        let subscriber = HistorySubscriber()
        var added = false
        changeConsumers { state in
            guard !state.isClosed else { return }
            state.subscribers.append((UUID(), subscriber))
            added = true
        }
        return added ? subscriber : nil
    }

    /// Changes the consumers, and starts the loop with the first one (the batch authors' stores
    /// never start it: they only write).
    private func changeConsumers(_ change: (inout State) -> Void) {
        let wakesLoop = state.withLock { state -> Bool in
            change(&state)
            guard !state.isClosed, state.hasConsumers, !configuration.batchAuthors.contains(configuration.currentAuthor)
            else { return false }
            // A running loop may be waiting for the next commit, having found no consumer for
            // what is already committed: it must read again for the new one now.
            guard state.loop == nil else { return true }
            core.commitWatch?.start()
            state.loop = Task.detached { [self] in await run() }
            return false
        }
        if wakesLoop { core.commits.notify() }
    }

    /// Stops the loop for good and ends every iteration (the store closes).
    func close() {
        let (loop, subscribers) = state.withLock { state in
            state.isClosed = true
            defer { state.subscribers.removeAll() }
            return (state.loop, state.subscribers.map(\.subscriber))
        }
        loop?.cancel()
        for subscriber in subscribers { subscriber.finish() }
    }

    // MARK: The loop

    private enum Round {
        /// Nothing more to read now: wait for a commit.
        case caughtUp
        /// The round hit its limit: read on at once.
        case more
        /// A consumer failed: deliver the same batch again after a pause.
        case failed
    }

    private func run() async {
        defer { core.commitWatch?.stop() }
        var cursor: Int64
        do {
            cursor = try await core.read { [authorID] connection in
                try connection.integer("SELECT cursor FROM history_authors WHERE id = ?", [.integer(authorID)]) ?? 0
            }
        } catch {
            return
        }
        var lastAdvance = ContinuousClock.now
        var merges = 0
        while !Task.isCancelled, !core.commits.isFinished {
            let generation = core.commits.generation
            let round: Round
            do {
                round = try await merge(cursor: &cursor, lastAdvance: &lastAdvance, merges: &merges)
            } catch {
                if Task.isCancelled || core.commits.isFinished { return }
                round = .failed
            }
            switch round {
            case .more: continue
            case .caughtUp: await core.commits.wait(after: generation)
            case .failed: try? await Task.sleep(for: Self.retryDelay)  // cancelled: the loop ends just after
            }
        }
    }

    private func merge(cursor: inout Int64, lastAdvance: inout ContinuousClock.Instant, merges: inout Int) async throws -> Round {
        let consumers = state.withLock { ($0.observers, $0.hooks, $0.subscribers) }
        guard !consumers.0.isEmpty || !consumers.1.isEmpty || !consumers.2.isEmpty else { return .caughtUp }
        let known = cursor
        let (start, unseen) = try await core.read { [authorID, configuration, directory = core.directory] connection in
            // Another store of this author (a restart overlapping the old process) may have
            // consumed past this loop: the stored cursor decides, so that is not delivered again.
            let stored = try connection.integer(
                "SELECT cursor FROM history_authors WHERE id = ?", [.integer(authorID)]) ?? 0
            let start = max(known, stored)
            return (start, try HistoryReader.unseen(
                after: start, authorID: authorID, includingOwn: configuration.includesOwnChanges,
                limit: Self.changesPerRound, on: connection, directory: directory))
        }
        cursor = start
        guard let unseen else { return .caughtUp }
        let isFull = unseen.through - start >= Int64(Self.changesPerRound)
        if unseen.transactions.isEmpty && unseen.gaps.isEmpty {
            // Only this author's own changes: nothing to deliver, and the cursor moves past them
            // now and then, so they do not hold cleanup back for ever.
            if isFull || ContinuousClock.now - lastAdvance >= Self.ownChangesAdvanceInterval {
                try await advance(to: unseen.through, clearing: [:], merges: &merges, counts: false)
                cursor = unseen.through
                lastAdvance = .now
            }
            return isFull ? .more : .caughtUp
        }
        let batch = HistoryBatch(transactions: unseen.transactions, gaps: unseen.gaps)
        for transaction in batch.transactions {
            for change in transaction.changes {
                let single = HistoryTransaction(
                    id: transaction.id, author: transaction.author, date: transaction.date, changes: [change])
                for observer in consumers.0 where observer.matches(change) {
                    await observer.callback(single)
                }
            }
        }
        for hook in consumers.1 {
            // A throw leaves the cursor where it was: the batch comes again (at least once).
            if try await hook.callback(batch) == .finish { break }
        }
        for (_, subscriber) in consumers.2 where !(await subscriber.deliver(batch)) {
            // An iteration that ended before it finished the batch: not consumed.
            state.withLock { state in state.subscribers.removeAll { $0.subscriber === subscriber } }
            return .failed
        }
        try await advance(to: unseen.through, clearing: unseen.gaps, merges: &merges, counts: true)
        cursor = unseen.through
        lastAdvance = .now
        return isFull ? .more : .caughtUp
    }

    /// Moves the cursor past what was consumed and marks its gaps reported, in one transaction,
    /// then cleans up as the strategy asks (a merge's cleanup failing does not undo the merge).
    private func advance(to seq: Int64, clearing gaps: [HistoryEntity: Int], merges: inout Int, counts: Bool) async throws {
        if counts { merges += 1 }
        let cleans = switch configuration.cleanStrategy {
        case .none: false
        case .everyNMerges(let every): counts && merges % max(1, every) == 0
        case .byDuration: counts
        }
        try await writer.perform(ordered: false) { [authorID, configuration] writer in
            try writer.transaction {
                try HistoryAuthors.advance(authorID, to: seq, on: writer.connection, countsMerge: counts)
                try HistoryReader.clear(gaps, authorID: authorID, on: writer.connection)
                guard cleans else { return }
                if case .byDuration(let interval) = configuration.cleanStrategy,
                    let last = try HistoryCleanup.lastCleanup(on: writer.connection),
                    Date().timeIntervalSince(last) < interval.seconds
                {
                    return
                }
                _ = try HistoryCleanup.clean(required: configuration.requiredAuthors, on: writer.connection)
            }
        }
    }
}
