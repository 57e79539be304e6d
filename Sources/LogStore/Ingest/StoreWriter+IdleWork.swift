extension StoreWriter {
    /// Steps of the full-text index when they are due (``SearchIndexRound``), with their
    /// failures reported.
    ///
    /// - Returns: whether work remains after a step (the caller loops again).
    func indexSearch(isBusy: Bool) -> Bool {
        guard indexesSearch, !failureLog.isIndexDamaged, tickets.damage == nil else { return false }
        if groupCommits && !isBusy && !isIdleIndexStepDue() { return false }
        return database.withLock { writer -> Bool in
            do {
                // Merges wait while commits fail (a full disk: they would only fail too) and
                // while the store is within a partition's share of the size at which it is swept:
                // a merge keeps its input segments until it is done, and the extra pages must not
                // set off a size sweep that deletes messages.
                let mayMerge = writer.failedRounds == 0 && sizeCheck.bytesBelowLimit >= writer.searchPartitionBytes
                return try SearchIndexRound.run(writer, isBusy: isBusy, mayMerge: mayMerge) {
                    failureLog.succeeded(.indexStep)
                }
            } catch {
                // A damaged index (FTS5's own pages: derived data, the messages may be sound)
                // stops indexing, not logging; reported once, and searches report it too. Any
                // other damage a step meets is the database's, as if a commit had met it.
                let isIndexOnly = (error as? DatabaseError)?.isVirtualTableCorrupt == true
                let path = writer.connection.path
                if let damage = DatabaseDamage.error(for: error, database: path, inSearchIndex: isIndexOnly) {
                    if isIndexOnly {
                        failureLog.searchIndexDamaged(damage)
                    } else {
                        reportDamage(damage)
                    }
                    return false
                }
                // The index only falls behind (searches still read the rest): say so once per
                // cause, and try again on the next round.
                failureLog.failed(.indexStep, LogStoreError(error))
                return false
            }
        }
    }

    /// With group commit, whether an idle writer may run an index step now: once per save
    /// interval, as when it committed once per interval. A step after every commit of a light
    /// load (a transaction of its own each) took ~40 % of the writer's CPU at 2k messages/s;
    /// searches read what is not indexed yet, and a busy writer still keeps the lag bounded.
    private func isIdleIndexStepDue() -> Bool {
        let now = thread.elapsed
        return lastIdleIndexStep.withLock { last in
            if let last, now - last < saveInterval { return false }
            last = now
            return true
        }
    }

    /// The size check after a transaction, when one is due (``SizeCheck``).
    func checkSize(_ writer: BatchWriter) {
        do {
            if try sizeCheck.checkIfDue(writer) { failureLog.succeeded(.sizeCheck) }
        } catch {
            // Without the measure no size sweep starts: say so (once per cause, not per commit).
            failureLog.failed(.sizeCheck, LogStoreError(error))
        }
    }

    /// Runs the queued jobs that need no commit first (one step each), leaving ordered jobs
    /// queued. Called on the writer thread with the connection held.
    func runUnorderedJobs(_ writer: BatchWriter) {
        // Past the size at which it is swept, logging must not outrun the sweep: its steps run
        // for up to 200 ms here (producers wait for room, or the overflow policy drops), within
        // the 250 ms a commit may wait. Work time, measured on the real clock.
        let budget: Duration = sizeCheck.isOverLimit ? .milliseconds(200) : .zero
        let start = ContinuousClock.now
        repeat {
            guard let ranStepwise = jobs.runUnorderedSteps(writer) else { return }
            // Only the steps of long work hold idle merges back: a single write (another
            // author's history cursor, every batch it merges) would keep them from ever running.
            if ranStepwise { writer.searchMerges.lastLongWorkStep = .now }
        } while ContinuousClock.now - start < budget
    }

    /// Runs the queued jobs: the ordered ones after committing what waits, then a step of each
    /// unordered one; `false` when none was queued.
    func runJobs() -> Bool {
        guard let ordered = jobs.takeOrdered() else { return false }
        if !ordered.isEmpty {
            // `perform` promises ordered work runs after the events accepted before the call:
            // one may have arrived after this round's batch was taken, so commit what is waiting
            // first, without starting another batch in the background (twice when one was being
            // prepared: it holds only what was taken before it started).
            let hadPendingBatch = pipeline.hasPendingBatch
            _ = writePendingEvents(pipelining: false)
            if hadPendingBatch { _ = writePendingEvents(pipelining: false) }
            database.withLock { writer in
                for job in ordered { _ = job.start(writer) }
            }
        }
        database.withLock { runUnorderedJobs($0) }
        return true
    }
}
