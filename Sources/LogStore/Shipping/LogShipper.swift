public import Foundation
import Synchronization

/// Ships a store's messages and network tasks to ClickHouse or an OTLP endpoint, at least once,
/// in commit order, beside the app that logs into it (in the same process or another).
///
/// A shipper is a history author (``HistoryConfiguration``) with the retention guard on: its
/// cursor in the store moves only after the destination acknowledged what it covers, and the
/// age sweep keeps what it has not sent. What the size limit deletes before it is sent reaches
/// the destination as a counted gap. The rows the store held before the shipper first ran are
/// sent first (the backfill), from the oldest.
///
/// ```swift
/// let shipper = try await LogShipper(storeURL: url, configuration: .init(destination: .clickHouse(
///     ClickHouseDestination(urls: [URL(string: "http://clickhouse:8123")!]))))
/// try await shipper.run()   // until stop() or the task is cancelled
/// try await shipper.close()
/// ```
///
/// A request that fails (unreachable, timed out, 429, 5xx) is sent again, the same rows, after
/// 250 ms, doubling up to ``Configuration/longestRetryDelay``; a refused one (400, or 413 for a
/// single row) is set aside and counted. Progress and counters are kept in the store
/// (``ShipperStatus``), where ``LogStore/info()`` and `logstore history` read them.
public final class LogShipper: Sendable {
    /// What it ships where.
    public let configuration: Configuration
    /// The store it ships, opened as its own history author.
    public let store: LogStore

    private let destination: any ShippingDestination
    private let shipment: Shipment
    private let authorID: Int64
    private let state = Mutex(State())

    private struct State {
        var isStopping = false
        var isRunning = false
        var hook: UUID?
        var listeners: [UUID: AsyncStream<ShippingEvent>.Continuation] = [:]
        /// Whether the destination must be prepared before the next request (at first, and
        /// after a failure: a server that was down has its tables made when it is back).
        var needsPreparation = true
        /// Requests on their way now.
        var inFlight = 0
    }

    /// Opens the store at `storeURL` (it must exist) as the shipper's history author.
    ///
    /// - Throws: ``LogStoreError`` when the store cannot be opened for writing.
    public init(storeURL: URL, configuration: Configuration) async throws {
        guard configuration.maxRowsPerRequest > 0, configuration.maxBytesPerRequest > 0 else {
            throw LogStoreError.invalidArgument("a shipper's requests need room for at least one row and one byte")
        }
        var storeConfiguration = LogStore.Configuration()
        storeConfiguration.recordsSessionOnOpen = false
        // The app's writers keep the store's index; a shipper indexing a store whose app keeps
        // none would spend its CPU on a search nobody asked for (and sweeps are the app's too:
        // it opens without `.sweep`).
        storeConfiguration.isSearchIndexEnabled = false
        storeConfiguration.history = HistoryConfiguration(currentAuthor: configuration.author, retentionGuard: true)
        let store = try await LogStore(storeURL: storeURL, options: [], configuration: storeConfiguration)
        guard let authorID = store.historyMerger?.authorID else {
            try await store.close()
            throw LogStoreError.invalidArgument("\(storeURL.path) cannot be shipped: it was opened read-only")
        }
        do {
            let destination = configuration.destination.description
            try await store.core.write { writer in
                try writer.transaction {
                    try writer.connection.run(
                        Shippers.insertSQL,
                        [.integer(authorID), .text(destination), .real(Date().timeIntervalSince1970)])
                }
            }
        } catch {
            try? await store.close()
            throw error
        }
        self.configuration = configuration
        self.store = store
        self.authorID = authorID
        shipment = Shipment(
            node: configuration.node, store: store.core.manifest.withLock { $0.storeId },
            compresses: configuration.compresses)
        switch configuration.destination {
        case .clickHouse(let clickHouse):
            destination = ClickHouseShipping(clickHouse, timeout: configuration.requestTimeout)
        case .otlp(let otlp):
            destination = OTLPShipping(otlp, node: configuration.node, timeout: configuration.requestTimeout)
        }
    }

    // MARK: Running

    /// Ships until ``stop()`` or the calling task is cancelled: first what the store held
    /// before the shipper's first run, then every commit as it happens. Returns once the request
    /// in flight is acknowledged (or given up); nothing sent is lost, what was not acknowledged
    /// is sent again by the next run.
    ///
    /// - Throws: ``LogStoreError`` when the store cannot be read.
    public func run() async throws {
        let starts = state.withLock { state in
            guard !state.isRunning else { return false }
            state.isRunning = true
            state.isStopping = false
            return true
        }
        guard starts else { throw LogStoreError.invalidArgument("this shipper is running already") }
        defer { state.withLock { $0.isRunning = false } }
        try await withTaskCancellationHandler {
            // Prepared now, not only before the first request: a run with nothing to send still
            // gives a replica that was down its tables. A failure is tried again before a request.
            do throws(ShippingFailure) {
                try await destination.prepare()
                state.withLock { $0.needsPreparation = false }
            } catch {
                state.withLock { $0.needsPreparation = true }
            }
            do {
                try await backfill()
            } catch is CancellationError where isStopping {
                return
            }
            guard !isStopping else { return }
            let hook = await store.registerMergeHook { [weak self] batch in
                guard let self else { return .goOn }
                try await ship(batch)
                return .goOn
            }
            state.withLock { $0.hook = hook }
            // The merge loop calls the hook; this task waits for the stop, and meanwhile lets
            // the destination finish what it could not prepare (a replica that was down).
            var ticks = 0
            while !isStopping {
                try? await Task.sleep(for: .milliseconds(100))
                ticks += 1
                if ticks % 20 == 0 { destination.prepareLater() }
            }
        } onCancel: {
            stop()
        }
    }

    /// Asks ``run()`` to return once the request in flight is done.
    public func stop() {
        state.withLock { $0.isStopping = true }
    }

    /// Stops, waits for the request in flight (at most its timeout), and closes the store.
    public func close() async throws {
        stop()
        let deadline = ContinuousClock.now + configuration.requestTimeout + .seconds(1)
        while state.withLock({ $0.inFlight > 0 }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        if let hook = state.withLock({ $0.hook }) { await store.removeMergeHook(id: hook) }
        try await store.close()
        let listeners = state.withLock { state in
            defer { state.listeners.removeAll() }
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.finish() }
    }

    /// Its progress and counters as the store holds them now.
    public func status() async throws -> ShipperStatus {
        let authorID = authorID
        let statuses = try await store.core.read { connection in try ShipperStatusRows.all(on: connection) }
        guard let status = statuses.first(where: { $0.author == configuration.author }) else {
            throw LogStoreError.invalidArgument("shipper \(configuration.author) (#\(authorID)) has no row in the store")
        }
        return status
    }

    /// Waits until everything committed before the call is acknowledged, checking every 20 ms,
    /// and until every ClickHouse replica that answers has its tables (a replica that does not
    /// answer is not waited for: it gets them when it is back and a shipper runs).
    ///
    /// - Returns: false when `timeout` passed first.
    public func waitUntilCaughtUp(timeout: Duration) async throws -> Bool {
        let target = try await store.core.read { connection in
            try connection.integer(HistoryTables.lastSequenceSQL) ?? 0
        }
        let deadline = ContinuousClock.now + timeout
        var lastPending: String?
        var waits = 0
        while ContinuousClock.now < deadline {
            let (cursor, backfill) = try await store.core.read { [authorID] connection in
                (try HistoryAuthors.cursor(authorID, on: connection), try ShipperStatusRows.backfillRows(authorID, on: connection))
            }
            if cursor >= target && backfill == 0 {
                guard let pending = destination.pendingPreparation else { return true }
                if pending != lastPending {
                    // Said once per reason: what a script waiting on the shipper needs to see.
                    waits += 1
                    emit(.retrying(error: pending, attempt: waits, delay: .seconds(2)))
                    lastPending = pending
                }
                destination.prepareLater()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// What the shipper does, as it does it; the stream ends when the shipper closes.
    public func events() -> AsyncStream<ShippingEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ShippingEvent.self, bufferingPolicy: .bufferingNewest(1_000))
        let id = UUID()
        state.withLock { $0.listeners[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) } }
        return stream
    }

    // MARK: Shipping

    private var isStopping: Bool { state.withLock { $0.isStopping } }

    private func emit(_ event: ShippingEvent) {
        for listener in state.withLock({ Array($0.listeners.values) }) { listener.yield(event) }
    }

    /// Sends the rows that were in the store before the shipper first ran, recording progress
    /// after each acknowledged request.
    private func backfill() async throws {
        let row = try await store.core.read { [authorID] connection in
            try ShipperStatusRows.backfill(authorID, on: connection)
        }
        var work = ShippingWork(messages: row.messages.map { [$0] } ?? [], tasks: row.tasks.map { [$0] } ?? [])
        try await send(&work, backfill: true)
    }

    /// A merge hook's batch: the messages it inserted, the tasks it inserted or changed, and
    /// its gaps. Throws when the shipper stops before all of it is acknowledged (the batch comes
    /// again at the next run).
    private func ship(_ batch: HistoryBatch) async throws {
        var messages: [ClosedRange<Int64>] = []
        var tasks: [ClosedRange<Int64>] = []
        for transaction in batch.transactions {
            for change in transaction.changes {
                switch (change.entity, change.operation) {
                case (.message, .insert): messages += change.ids.ranges
                case (.task, .insert), (.task, .update): tasks += change.ids.ranges
                default: continue
                }
            }
        }
        var gaps: [ShippedGap] = []
        let reportable = batch.gaps.filter { ($0.key == .message || $0.key == .task) && $0.value > 0 }
        if !reportable.isEmpty {
            let cursor = try await store.core.read { [authorID] connection in try HistoryAuthors.cursor(authorID, on: connection) }
            gaps = reportable.sorted { $0.key.rawValue < $1.key.rawValue }.map {
                ShippedGap(entity: $0.key, rows: $0.value, cursor: cursor, date: Date())
            }
        }
        var work = ShippingWork(
            messages: IDRanges(unionOf: messages).ranges, tasks: IDRanges(unionOf: tasks).ranges, gaps: gaps)
        try await send(&work, backfill: false)
        for gap in gaps { emit(.gap(entity: gap.entity, rows: gap.rows)) }
        emit(.caughtUp)
    }

    /// Reads and sends `work` a request at a time until none is left. The next request's rows
    /// are read and encoded while the one before is in flight: one core prepares while the
    /// destination takes the rows.
    private func send(_ work: inout ShippingWork, backfill: Bool) async throws {
        var next: Task<(requests: [ShippingRequest], rest: ShippingWork), any Error>? = work.isEmpty ? nil : prepare(work)
        while let preparing = next {
            let (requests, rest) = try await preparing.value
            work = rest
            next = rest.isEmpty ? nil : prepare(rest)
            do {
                if isStopping { throw CancellationError() }
                for (index, request) in requests.enumerated() {
                    // The backfill's progress moves with the request that ends its part of the work.
                    let progress = backfill && index == requests.count - 1 ? (work.nextMessageID, work.nextTaskID) : nil
                    try await sendWithRetries(request, backfillProgress: progress)
                }
            } catch {
                next?.cancel()
                throw error
            }
        }
    }

    /// The next request's rows of `work`, read and encoded off the caller's task, and what is
    /// left after them.
    private func prepare(_ work: ShippingWork) -> Task<(requests: [ShippingRequest], rest: ShippingWork), any Error> {
        let (limit, maxBytes) = (configuration.maxRowsPerRequest, configuration.maxBytesPerRequest)
        let (store, destination, shipment) = (self.store, self.destination, self.shipment)
        return Task {
            let (rows, rest) = try await store.core.read { connection in
                var rest = work
                let rows = try rest.next(limit: limit, on: connection)
                return (rows, rest)
            }
            let requests = rows.split(maxBytes: maxBytes).map { Self.encoded($0, for: destination, shipment: shipment) }
            return (requests, rest)
        }
    }

    /// Sends `request` until acknowledged: a failure waits and sends the same bodies again; a
    /// refusal of too large a request sends its rows in halves; any other refusal sets the rows
    /// aside. `backfillProgress` is recorded with the acknowledgement.
    private func sendWithRetries(_ request: ShippingRequest, backfillProgress: (Int64, Int64)?) async throws {
        var delay = Duration.milliseconds(250)
        var attempts = 0
        while true {
            if isStopping { throw CancellationError() }
            let started = ContinuousClock.now
            let outcome = await attempt(request)
            switch outcome {
            case .success:
                try await record(sent: request.rows, bytes: request.bytes, backfillProgress: backfillProgress)
                emit(.sent(rows: request.rows.count, bytes: request.bytes, seconds: (ContinuousClock.now - started).seconds))
                return
            case .failure(.refused(let reason, let tooLarge)):
                if tooLarge && request.rows.count > 1 {
                    let halves = request.rows.halves()
                    for (index, half) in halves.enumerated() {
                        try await sendWithRetries(
                            Self.encoded(half, for: destination, shipment: shipment),
                            backfillProgress: index == halves.count - 1 ? backfillProgress : nil)
                    }
                    return
                }
                try await record(failure: reason, retried: false)
                try await record(setAside: request.rows.count, backfillProgress: backfillProgress)
                emit(.setAside(rows: request.rows.count, reason: reason))
                return
            case .failure(.retryable(let reason, let retryAfter)):
                attempts += 1
                state.withLock { $0.needsPreparation = true }
                let wait = min(max(delay, retryAfter ?? .zero), configuration.longestRetryDelay)
                try await record(failure: reason, retried: true)
                emit(.retrying(error: reason, attempt: attempts, delay: wait))
                try await pause(for: wait)
                delay = min(delay * 2, configuration.longestRetryDelay)
            }
        }
    }

    /// `rows` encoded for `destination`. Rows that cannot be (their compression failed) get no
    /// bodies, and ``attempt(_:)`` refuses them like a bad request: they are set aside, counted.
    private static func encoded(
        _ rows: ShippingRows, for destination: any ShippingDestination, shipment: Shipment
    ) -> ShippingRequest {
        do {
            return try destination.encode(rows, shipment: shipment)
        } catch {
            return ShippingRequest(rows: rows, bodies: [], bytes: 0)
        }
    }

    /// Waits `duration` before a retry, in steps of 50 ms so that ``stop()`` ends the wait
    /// (throwing): a `Retry-After` of a minute must not hold up a stop, as nothing is in flight.
    private func pause(for duration: Duration) async throws {
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end {
            if isStopping { throw CancellationError() }
            try await Task.sleep(for: min(.milliseconds(50), end - ContinuousClock.now))
        }
    }

    /// One request: the destination prepared when it needs to be, then the bodies. A request
    /// without bodies could not be encoded: it is refused.
    private func attempt(_ request: ShippingRequest) async -> Result<Void, ShippingFailure> {
        do throws(ShippingFailure) {
            guard !request.bodies.isEmpty else { throw .refused("the rows could not be encoded", tooLarge: false) }
            if state.withLock({ $0.needsPreparation }) {
                try await destination.prepare()
                state.withLock { $0.needsPreparation = false }
            }
            state.withLock { $0.inFlight += 1 }
            defer { state.withLock { $0.inFlight -= 1 } }
            try await destination.send(request)
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// The counters of an acknowledged request, and the backfill's progress with them, in one
    /// transaction.
    private func record(sent rows: ShippingRows, bytes: Int, backfillProgress: (Int64, Int64)?) async throws {
        let arguments: [DatabaseValue] = [
            .integer(Int64(rows.count - rows.gaps.count)), .integer(Int64(bytes)),
            .integer(Int64(rows.gaps.reduce(0) { $0 + $1.rows })), .real(Date().timeIntervalSince1970),
            .integer(authorID),
        ]
        try await record(Shippers.recordSentSQL, arguments, backfillProgress: backfillProgress)
    }

    private func record(setAside rows: Int, backfillProgress: (Int64, Int64)?) async throws {
        let arguments: [DatabaseValue] = [.integer(Int64(rows)), .integer(authorID)]
        try await record(Shippers.recordSetAsideSQL, arguments, backfillProgress: backfillProgress)
    }

    /// One counter statement, and the backfill's progress with it, in one transaction.
    private func record(_ sql: String, _ arguments: [DatabaseValue], backfillProgress: (Int64, Int64)?) async throws {
        try await store.core.write { [authorID] writer in
            try writer.transaction {
                try writer.connection.run(sql, arguments)
                if let (messages, tasks) = backfillProgress {
                    try writer.connection.run(
                        Shippers.backfillProgressSQL, [.integer(messages), .integer(tasks), .integer(authorID)])
                }
            }
        }
    }

    private func record(failure: String, retried: Bool) async throws {
        let arguments: [DatabaseValue] = [
            .integer(retried ? 1 : 0), .text(failure), .real(Date().timeIntervalSince1970), .integer(authorID),
        ]
        try await store.core.write { writer in
            try writer.transaction { try writer.connection.run(Shippers.recordFailureSQL, arguments) }
        }
    }
}

extension ShippingRows {
    /// About how many bytes a row takes in a request: its text and a fixed share for the rest.
    private static func estimatedSize(_ message: LogStore.Message) -> Int {
        72 + message.label.utf8.count + LogStore.Event.estimatedSize(message: message.text, metadata: message.metadata)
    }

    private static func estimatedSize(_ task: ShippedTask) -> Int {
        400 + (task.summary.url?.utf8.count ?? 0)
    }

    /// The rows in parts of at most about `maxBytes` each (a larger row alone).
    func split(maxBytes: Int) -> [ShippingRows] {
        // Most reads fit one request: then the rows stay as they are, not copied row by row.
        let total = messages.reduce(0) { $0 + Self.estimatedSize($1) } + tasks.reduce(0) { $0 + Self.estimatedSize($1) }
        if total <= maxBytes {
            var whole = self
            whole.estimatedBytes = total
            return whole.isEmpty ? [] : [whole]
        }
        var parts: [ShippingRows] = []
        var part = ShippingRows(gaps: gaps, version: version)
        var bytes = 0
        func close() {
            part.estimatedBytes = bytes
            if !part.isEmpty { parts.append(part) }
            part = ShippingRows(version: version)
            bytes = 0
        }
        for message in messages {
            let size = Self.estimatedSize(message)
            if bytes + size > maxBytes && part.count > 0 { close() }
            part.messages.append(message)
            bytes += size
        }
        for task in tasks {
            let size = Self.estimatedSize(task)
            if bytes + size > maxBytes && part.count > 0 { close() }
            part.tasks.append(task)
            bytes += size
        }
        close()
        return parts
    }

    /// The rows in two parts (the gaps with the first).
    func halves() -> [ShippingRows] {
        let total = messages.count + tasks.count
        let firstMessages = min(messages.count, (total + 1) / 2)
        let firstTasks = (total + 1) / 2 - firstMessages
        let first = ShippingRows(
            messages: Array(messages.prefix(firstMessages)), tasks: Array(tasks.prefix(firstTasks)), gaps: gaps,
            version: version, estimatedBytes: estimatedBytes / 2)
        let second = ShippingRows(
            messages: Array(messages.dropFirst(firstMessages)), tasks: Array(tasks.dropFirst(firstTasks)), version: version,
            estimatedBytes: estimatedBytes / 2)
        return [first, second].filter { !$0.isEmpty }
    }
}
