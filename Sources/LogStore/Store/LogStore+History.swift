public import Foundation

/// Reading the change history as the current author (``Configuration/history``): observers,
/// merge hooks, the sequence of unseen changes, and cleanup.
///
/// All three kinds of consumer share the author's one cursor. A merge reads what other authors
/// committed after it (about a thousand changes at a time, never half a transaction), calls the
/// observers, then the merge hooks, then hands the batch to each ``historyChanges()``
/// iteration, and only when all of them are done moves the cursor, in a transaction of its
/// own. Delivery is therefore at least once: a hook that throws, an iteration that stops midway
/// or a process killed before the move gets the batch again, and across restarts nothing
/// consumed is delivered twice.
///
/// Merges start with the first consumer and wake on every commit: this process's, and other
/// processes' within about 50 ms (``DataVersionWatch``). An author that registers no consumer
/// never moves its cursor, and, unless it is a batch author or retired, holds cleanup back.
/// Read-only stores and batch authors' stores accept consumers but never call them.
extension LogStore {
    /// Calls `observer` for each change of `entity` with `operation` (nil: any) that another
    /// author commits, one call per transaction, entity and operation, in commit order; the
    /// observers of one change in the order they registered, each awaited before the next.
    ///
    /// The transaction given holds just the one change. Observers only read: their calls are
    /// not undone when a merge hook throws, so after a throw they see the batch again.
    ///
    /// - Returns: the id that removes it (``removeObserver(id:)``).
    @discardableResult
    public func registerObserver(
        entity: HistoryEntity? = nil, operation: HistoryOperation? = nil,
        _ observer: @escaping @Sendable (HistoryTransaction) async -> Void
    ) async -> UUID {
        historyMerger?.addObserver(entity: entity, operation: operation, observer) ?? UUID()
    }

    /// Stops calling the observer registered with `id` (an unknown id is ignored).
    public func removeObserver(id: UUID) async {
        historyMerger?.removeObserver(id: id)
    }

    /// Stops calling every observer.
    public func removeAllObservers() async {
        historyMerger?.removeAllObservers()
    }

    /// Adds `hook` to the merge chain, before the hook with id `before` (at the end when nil or
    /// unknown). Each merge calls the chain in order with the batch of unseen transactions
    /// until a hook returns ``HistoryMergeHookResult/finish``. A hook that throws ends the merge
    /// without moving the cursor: the same batch comes again, to every hook, about 250 ms later.
    ///
    /// - Returns: the id that removes it (``removeMergeHook(id:)``) or places another before it.
    @discardableResult
    public func registerMergeHook(
        before: UUID? = nil, _ hook: @escaping @Sendable (HistoryBatch) async throws -> HistoryMergeHookResult
    ) async -> UUID {
        historyMerger?.addHook(before: before, hook) ?? UUID()
    }

    /// Removes the merge hook registered with `id` (an unknown id is ignored).
    public func removeMergeHook(id: UUID) async {
        historyMerger?.removeHook(id: id)
    }

    /// The current author's unseen changes, batch by batch, as they are committed; the sequence
    /// ends when the store closes (at once for a read-only store or a batch author).
    ///
    /// ```swift
    /// for await batch in store.historyChanges() {
    ///     for transaction in batch.transactions { try await index(transaction) }
    /// }   // a batch is consumed once the loop asks for the next one
    /// ```
    public nonisolated func historyChanges() -> HistoryChanges {
        HistoryChanges { [historyMerger] in historyMerger?.subscribe() }
    }

    /// The manual cleaner: deletes consumed history by the same rule as the automatic
    /// strategies (``HistoryConfiguration/CleanStrategy``).
    public nonisolated func historyCleaner() -> HistoryCleaner {
        HistoryCleaner(store: self)
    }

    /// ``HistoryCleaner/clean()``: the rule's writes, one step at a time on the writer (logging
    /// goes on between them).
    func cleanHistory() async throws -> HistoryCleanupReport {
        let required = configuration.history?.requiredAuthors ?? []
        var deleted = 0
        while true {
            let step = try await core.write { writer in
                try writer.transaction {
                    try HistoryCleanup.clean(
                        required: required, upTo: HistoryCleanup.changesPerStep, on: writer.connection)
                }
            }
            deleted += step.report.deletedChanges
            if step.isDone {
                return HistoryCleanupReport(deletedChanges: deleted, cleanedThrough: step.report.cleanedThrough)
            }
        }
    }
}
