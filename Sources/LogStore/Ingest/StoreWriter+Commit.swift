import Foundation

extension StoreWriter {
    enum Outcome { case idle, wrote, failed }

    /// Commits what waits: the batch prepared in the background, if any, else one prepared now.
    /// With `pipelining` and many events still waiting, the next batch is prepared in the
    /// background meanwhile.
    func writePendingEvents(pipelining: Bool = true) -> Outcome {
        _ = tickets.takeRetryRequest()
        return database.withLock { writer -> Outcome in
            let pendingBatch = pipeline.takeNext()
            // While the next batch is still being prepared, the writer would only wait.
            if let pendingBatch, !pendingBatch.isReady { runUnorderedJobs(writer) }
            var batch = pendingBatch?.wait() ?? pipeline.preparer.prepareNow(connection: writer.connection)
            if pipelining { pipeline.beginCommitting(batch) }
            defer { if pipelining { pipeline.endCommitting() } }
            if let damage = tickets.damage {
                // Nothing commits into a damaged database: what was accepted before the damage
                // was found is dropped, and so are its waiters.
                buffer.drop(batch.events, releasing: batch.taken)
                tickets.fail(upTo: batch.lastTicket, with: damage)
                return .idle
            }
            var events = batch.events
            batch.events = []
            let prepared = batch.tasks
            let lastTicket = batch.lastTicket
            let dropped = batch.droppedCount
            guard !events.isEmpty || lastTicket > tickets.committedTicket
                || dropped > writer.reportedDropCount
            else {
                buffer.release(batch.taken)
                return .idle
            }

            var notice = dropped > writer.reportedDropCount
                ? Self.dropNotice(
                    count: dropped - writer.reportedDropCount, capacity: buffer.capacity, bytes: buffer.byteCapacity)
                : nil
            writer.preparedMessages = batch.messages
            batch.messages = PreparedMessages()
            defer { writer.preparedMessages = PreparedMessages() }
            // The longest transaction of the round, steps of other jobs between them excluded.
            var longestCommit: Duration = .zero
            var committedNotice: LogStore.Event.MessageCreated?
            var rejected: [BatchWriter.RejectedEvent] = []
            var start = 0
            repeat {
                let end = writer.transactionEnd(events, from: start, batchBytes: batch.estimatedBytes)
                let commitStart = ContinuousClock.now
                let outcome = writer.commitSettingAside(
                    events, start..<end, prepared: prepared, dropNotice: notice, rejected: &rejected)
                if outcome.noticeCommitted {
                    committedNotice = notice
                    notice = nil
                    writer.reportedDropCount = dropped
                }
                if let failure = outcome.failure {
                    // What committed stays committed (and is published); the rest goes back to
                    // the head of the buffer, where it counts against the bound and waits for
                    // the retry.
                    writer.recordRound(failed: true)
                    let failed = Array(events[failure.index...])
                    events.removeSubrange(failure.index...)
                    publish(events, notice: committedNotice, without: rejected)
                    // Counted before the release: once an event is no longer pending, info()
                    // finds it stored, dropped or set aside.
                    reportRejected(rejected)
                    if let damage = DatabaseDamage.error(for: failure.error, database: writer.connection.path, inSearchIndex: false) {
                        drop(failed[...], taken: batch.taken)
                        reportDamage(damage)
                        return .idle
                    }
                    putBack(failed[...], taken: batch.taken)
                    reportFailure(failure.error, upTo: lastTicket)
                    return .failed
                }
                longestCommit = max(longestCommit, ContinuousClock.now - commitStart)
                // After every transaction, not once a round: a round under load holds many, and a
                // small store fills its limit within one.
                checkSize(writer)
                start = end
                // A round can hold many transactions: unordered jobs (the sweep's steps) take
                // their turns between them, not only after the whole round.
                if start < events.count { runUnorderedJobs(writer) }
            } while start < events.count
            writer.recordRound(failed: false)
            writer.searchMerges.lastLoggedRound = .now
            if groupCommits { lastCommitEnd.withLock { $0 = thread.elapsed } }
            reportRejected(rejected)
            // Still held in memory until the background frees them, then room for more.
            buffer.retire(batch.taken)
            lastCommitNanoseconds.store(longestCommit.nanoseconds, ordering: .relaxed)
            publish(events, notice: committedNotice, without: rejected)
            pipeline.preparer.recycleInBackground(&events, taken: batch.taken) { [roomWaiters] in roomWaiters.wakeAll() }
            reportCommit(upTo: lastTicket)
            return .wrote
        }
    }

    /// Publishes committed events to the subscribers: the drop notice first, then `events` but
    /// the ones set aside (never stored).
    private func publish(
        _ events: [LogStore.Event?], notice: LogStore.Event.MessageCreated?, without rejected: [BatchWriter.RejectedEvent]
    ) {
        guard broadcaster.hasSubscribers else { return }
        var published = notice.map { [LogStore.Event.messageStored($0)] } ?? []
        if rejected.isEmpty {
            published.append(contentsOf: events.lazy.compactMap { $0 })
        } else {
            let setAside = Set(rejected.map(\.index))
            published.append(contentsOf: events.indices.lazy.filter { !setAside.contains($0) }.compactMap { events[$0] })
        }
        broadcaster.publish(published)
    }

    /// Puts the events of a failed commit back at the head of the buffer, with those of the
    /// batch prepared meanwhile (newer: they wait behind), releasing what both took.
    private func putBack(_ failed: ArraySlice<LogStore.Event?>, taken: IngestBuffer.Taken) {
        let (events, taken) = withNextBatch(failed, taken: taken)
        buffer.putBack(events, releasing: taken)
    }

    /// Drops the events of a commit that met a damaged database, with those of the batch
    /// prepared meanwhile, counted as dropped.
    private func drop(_ failed: ArraySlice<LogStore.Event?>, taken: IngestBuffer.Taken) {
        let (events, taken) = withNextBatch(failed, taken: taken)
        buffer.drop(events, releasing: taken)
    }

    /// The events of a failed commit followed by those of the batch prepared meanwhile, and what
    /// both took from the buffer.
    private func withNextBatch(
        _ failed: ArraySlice<LogStore.Event?>, taken: IngestBuffer.Taken
    ) -> (events: [LogStore.Event?], taken: IngestBuffer.Taken) {
        var events = Array(failed)
        var taken = taken
        // No preparation may start after this one is taken: it would hold newer events.
        pipeline.endCommitting()
        if let next = pipeline.takeNext() {
            let batch = next.wait()
            events += batch.events
            taken = taken + batch.taken
        }
        return (events, taken)
    }

    /// Reports the damage once (``CommitTickets/damage``), fails the waiters, and has the buffer
    /// drop every event from now on.
    func reportDamage(_ damage: LogStoreError) {
        guard tickets.damage == nil else { return }
        buffer.dropEverything()
        // The hook first: a flush failed by the damage must find it already reported.
        failureLog.databaseDamaged(damage)
        _ = tickets.recordDamage(damage)
        tickets.fail(upTo: .max, with: damage)
        roomWaiters.wakeAll()
    }

    private func reportCommit(upTo ticket: UInt64) {
        commits.notify()
        failureLog.committed()
        tickets.committed(upTo: ticket)
    }

    /// A commit's failure as the store reports it: ``LogStoreError/writeFailed(_:)`` with its cause.
    private static func writeFailed(_ error: any Error) -> LogStoreError {
        let cause = LogStoreError(error)
        return cause.kind == .writeFailed ? cause : .writeFailed(cause)
    }

    /// Counts and reports the events set aside because they failed on their own.
    private func reportRejected(_ rejected: [BatchWriter.RejectedEvent]) {
        guard !rejected.isEmpty else { return }
        failureLog.eventsRejected(rejected.map { Self.writeFailed($0.error) })
    }

    /// Counts and reports body files a transaction's end could not delete (they stay as orphans
    /// for the sweep's scan, which retries).
    func reportFileDeletionFailures(_ failures: [LogStoreError]) {
        failureLog.blobDeletionsFailed(failures)
    }

    private func reportFailure(_ error: any Error, upTo ticket: UInt64) {
        let storeError = Self.writeFailed(error)
        // The hook first: a `.synchronous` call or a flush that returns with this failure must find
        // it already reported (a caller checks its hook's record once the call is back). The same
        // failure again (a full disk, round after round) was reported already.
        failureLog.commitFailed(storeError)
        tickets.fail(upTo: ticket, with: storeError)
    }

    private static func dropNotice(count: UInt64, capacity: Int, bytes: Int) -> LogStore.Event.MessageCreated {
        LogStore.Event.MessageCreated(
            createdAt: Date(), label: "logstore", level: .warning,
            message: "Dropped \(count) events: the ingestion buffer was full "
                + "(maxPendingEvents = \(capacity), maxPendingBytes = \(bytes))",
            metadata: ["dropped": .string(String(count))], file: "StoreWriter.swift", function: "writePendingEvents()",
            line: 0)
    }
}
