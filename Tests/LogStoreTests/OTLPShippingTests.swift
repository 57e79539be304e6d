import Foundation
import LogStore
import Testing

/// Shipping to an OTLP/HTTP endpoint end to end: a real store, messages and tasks logged before
/// and while the shipper runs (from the test and from a child process), `LogShipper` and
/// `logstore ship --otlp`, against `otlp_receiver.py`, which parses every request with
/// opentelemetry-proto and answers what the test tells it to (503, 429 with `Retry-After`, 400).
///
/// What each test holds the shipper to: every row arrives (the union of the accepted requests'
/// ids is what the store holds: at least once), no row twice within one accepted request, the
/// same rows again after a 503 or 429 (after the `Retry-After`), never again after a 400 (set
/// aside, and counted where `status()` and `logstore history` read it).
@Suite("OTLP shipping", .timeLimit(.minutes(TimeScale.minutes(4))))
struct OTLPShippingTests {
    static let logstore = testHelperExecutable.deletingLastPathComponent().appendingPathComponent("logstore")
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let spanID = "00f067aa0ba902b7"
    static let severities: [LogStore.Level: Int] = [
        .trace: 1, .debug: 5, .info: 9, .notice: 10, .warning: 13, .error: 17, .critical: 18,
    ]

    /// Logs `count` messages tagged `tag` (every level in turn, nested metadata, a `traceparent`
    /// on every tenth) and two tasks (one whose request carries a `traceparent`).
    static func logRows(_ store: LogStore, _ tag: String, count: Int) {
        for index in 0..<count {
            var metadata: LogStore.Metadata = [
                "tag": .string(tag), "request": ["path": .string("/orders/\(index)"), "ids": ["1", "2"]],
            ]
            if index % 10 == 3 { metadata["traceparent"] = .string("00-\(traceID)-\(spanID)-01") }
            store.storeMessage(
                label: "orders", level: LogStore.Level.allCases[index % 7], message: "\(tag) \(index)", metadata: metadata)
        }
        let url = URL(string: "https://api.example.com/orders/\(tag)")!
        store.storeRequest(
            NetworkRequest(url: url, headers: ["traceparent": "00-\(traceID)-\(spanID)-01"]),
            response: NetworkResponse(url: url, statusCode: 200, headers: ["Content-Type": "application/json"]),
            error: nil, data: Data("{}".utf8))
        store.storeRequest(
            NetworkRequest(url: url, method: "POST"), response: NetworkResponse(url: url, statusCode: 503), error: nil,
            data: nil)
    }

    static func configuration(_ receiver: OTLPReceiver, rowsPerRequest: Int = 25) -> LogShipper.Configuration {
        var configuration = LogShipper.Configuration(
            destination: .otlp(OTLPDestination(url: receiver.url, headers: ["X-Api-Key": "k1"], serviceName: "orders")),
            node: "web-1")
        configuration.maxRowsPerRequest = rowsPerRequest
        // A test's failing requests are retried within the test's bounds.
        configuration.longestRetryDelay = .seconds(5)
        return configuration
    }

    /// What the store holds: its message ids and task row ids, and each message's record key
    /// and expected severity.
    struct Logged {
        var messages: [LogStore.Message]
        var tasks: [NetworkTaskSummary]
        var messageIDs: Set<Int64> { Set(messages.map(\.id)) }
        var taskIDs: Set<Int64> { Set(tasks.map(\.rowID)) }

        init(_ store: LogStore) async throws {
            messages = try await allMessages(store)
            tasks = try await ArchiveTests.allTasks(store)
        }
    }

    /// The checks every accepted request passes: a body the parser read, gzip, the headers
    /// and resource the configuration gives, each row at most once, each message's severity.
    static func checkAccepted(
        _ requests: [OTLPReceiver.Request], _ logged: Logged, service: String, host: String, apiKey: String
    ) {
        let levels = Dictionary(uniqueKeysWithValues: logged.messages.map { ("m\($0.id)", severities[$0.level] ?? 0) })
        for request in requests where request.status == 200 {
            #expect(request.error == nil)
            #expect(request.encoding == "gzip")
            #expect(request.headers["content-type"] == "application/json")
            #expect(request.headers["x-api-key"] == apiKey)
            #expect(request.resource["service.name"] == service)
            #expect(request.resource["host.name"] == host)
            #expect(request.resource["service.instance.id"]?.isEmpty == false)
            #expect(Set(request.ids).count == request.ids.count, "a message twice in request \(request.turn)")
            #expect(Set(request.taskIDs).count == request.taskIDs.count, "a task twice in request \(request.turn)")
            for (key, severity) in zip(request.keys, request.severities) where key.hasPrefix("m") {
                #expect(levels[key] == severity, "\(key)")
            }
        }
        // Trace context: every message with a traceparent, every task whose request had one.
        let accepted = requests.filter { $0.status == 200 }
        let traces = accepted.reduce(into: [String: [String]]()) { $0.merge($1.traces) { first, _ in first } }
        let keys = Set(accepted.flatMap(\.keys))
        for message in logged.messages where keys.contains("m\(message.id)") {
            let expected = message.metadata["traceparent"] == nil ? nil : [traceID, spanID]
            #expect(traces["m\(message.id)"] == expected, "m\(message.id)")
        }
        for task in logged.tasks where keys.contains("t\(task.rowID)") {
            #expect(traces["t\(task.rowID)"] == (task.method == "GET" ? [traceID, spanID] : nil), "t\(task.rowID)")
        }
        #expect(Set(requests.compactMap { $0.resource["service.instance.id"] }).count <= 1)
    }

    /// Waits for `events` to end (the shipper closed), at most 30 s.
    static func drain(_ events: AsyncStream<ShippingEvent>) async throws -> [ShippingEvent] {
        try await withinTimeLimit(seconds: 30) {
            var all: [ShippingEvent] = []
            for await event in events { all.append(event) }
            return all
        }
    }

    /// Ends `run()` (it returns within about 100 ms of `stop()`) and closes the shipper.
    static func stop(_ shipper: LogShipper, _ running: Task<Void, any Error>) async throws {
        shipper.stop()
        try await withinTimeLimit(seconds: 30) { try await running.value }
        try await shipper.close()
    }

    // MARK: LogShipper

    @Test(.enabled(if: OTLPReceiver.isAvailable, OTLPReceiver.unavailable))
    func shipsEveryRowLoggedBeforeAndWhileItRuns() async throws {
        try await withTemporaryStoreURL { storeURL in
            try await OTLPReceiver.with(in: storeURL.deletingLastPathComponent()) { receiver in
                try await withStore(at: storeURL) { store in
                    Self.logRows(store, "before", count: 60)
                    try await store.flush()
                    let shipper = try await LogShipper(storeURL: storeURL, configuration: Self.configuration(receiver))
                    let events = shipper.events()
                    let running = Task { try await shipper.run() }
                    // While it runs: from this process, and from another one.
                    Self.logRows(store, "during", count: 40)
                    try await store.flush()
                    let child = try await SpawnedProcess.run(
                        testHelperExecutable, ["steady", storeURL.path, "50", "250"], seconds: 60)
                    #expect(child.status == 0, "\(child.output)")
                    Self.logRows(store, "after", count: 10)
                    try await store.flush()
                    #expect(try await shipper.waitUntilCaughtUp(timeout: .seconds(TimeScale.scaled(60))))

                    let logged = try await Logged(store)
                    #expect(logged.messages.count == 160)
                    #expect(logged.tasks.count == 6)
                    let requests = try receiver.requests()
                    #expect(requests.allSatisfy { $0.status == 200 }, "\(requests)")
                    #expect(Set(requests.flatMap(\.ids)) == logged.messageIDs)
                    #expect(Set(requests.flatMap(\.taskIDs)) == logged.taskIDs)
                    #expect(requests.count > 1)
                    Self.checkAccepted(requests, logged, service: "orders", host: "web-1", apiKey: "k1")

                    let status = try await shipper.status()
                    #expect(status.sentRequests == requests.count)
                    #expect(status.sentRows == requests.reduce(0) { $0 + $1.records })
                    #expect(status.retries == 0 && status.failures == 0 && status.setAsideRows == 0 && status.gapRows == 0)
                    #expect(status.isCaughtUp)
                    #expect(status.destination == "otlp \(receiver.url.absoluteString)")

                    try await Self.stop(shipper, running)
                    let sent = try await Self.drain(events).compactMap { event -> Int? in
                        guard case .sent(let rows, _, _) = event else { return nil }
                        return rows
                    }
                    #expect(sent == requests.map(\.records))
                }
            }
        }
    }

    @Test(.enabled(if: OTLPReceiver.isAvailable, OTLPReceiver.unavailable))
    func retriesOn503And429AfterRetryAfter() async throws {
        try await withTemporaryStoreURL { storeURL in
            try await OTLPReceiver.with(in: storeURL.deletingLastPathComponent(), failing: "503,429@2") { receiver in
                try await withStore(at: storeURL) { store in
                    Self.logRows(store, "before", count: 20)
                    try await store.flush()
                    let shipper = try await LogShipper(storeURL: storeURL, configuration: Self.configuration(receiver, rowsPerRequest: 100))
                    let events = shipper.events()
                    let running = Task { try await shipper.run() }
                    #expect(try await shipper.waitUntilCaughtUp(timeout: .seconds(TimeScale.scaled(60))))
                    let logged = try await Logged(store)
                    let requests = try receiver.requests()
                    try #require(requests.count >= 3, "\(requests)")
                    #expect(requests.prefix(3).map(\.status) == [503, 429, 200])
                    #expect(requests.dropFirst(3).allSatisfy { $0.status == 200 })
                    // The same rows, sent again.
                    #expect(requests[1].ids == requests[0].ids && requests[2].ids == requests[0].ids)
                    #expect(requests[1].taskIDs == requests[0].taskIDs && requests[2].taskIDs == requests[0].taskIDs)
                    // 250 ms after the 503; at least the 2 s the 429 asked for after it.
                    #expect(requests[1].received - requests[0].answered >= 0.25)
                    #expect(requests[1].retryAfter == 2)
                    #expect(requests[2].received - requests[1].answered >= 2.0)
                    #expect(Set(requests.filter { $0.status == 200 }.flatMap(\.ids)) == logged.messageIDs)
                    #expect(Set(requests.filter { $0.status == 200 }.flatMap(\.taskIDs)) == logged.taskIDs)
                    Self.checkAccepted(requests, logged, service: "orders", host: "web-1", apiKey: "k1")

                    let status = try await shipper.status()
                    #expect(status.retries == 2)
                    #expect(status.failures == 2)
                    #expect(status.setAsideRows == 0)
                    #expect(status.sentRequests == requests.count - 2)
                    #expect(status.lastError?.contains("429") == true, "\(status.lastError ?? "nil")")

                    try await Self.stop(shipper, running)
                    let retries = try await Self.drain(events).compactMap { event -> (Int, Duration)? in
                        guard case .retrying(_, let attempt, let delay) = event else { return nil }
                        return (attempt, delay)
                    }
                    #expect(retries.map(\.0) == [1, 2])
                    #expect(retries.map(\.1) == [.milliseconds(250), .seconds(2)])
                }
            }
        }
    }

    @Test(.enabled(if: OTLPReceiver.isAvailable, OTLPReceiver.unavailable))
    func a400SetsTheBatchAsideAndIsNotRetried() async throws {
        try await withTemporaryStoreURL { storeURL in
            // The backfill goes in requests of 10: the second is refused.
            try await OTLPReceiver.with(in: storeURL.deletingLastPathComponent(), failing: "200,400") { receiver in
                try await withStore(at: storeURL) { store in
                    Self.logRows(store, "before", count: 28)  // and 2 tasks: 3 requests of 10
                    try await store.flush()
                    let shipper = try await LogShipper(storeURL: storeURL, configuration: Self.configuration(receiver, rowsPerRequest: 10))
                    let events = shipper.events()
                    let running = Task { try await shipper.run() }
                    Self.logRows(store, "during", count: 5)
                    try await store.flush()
                    #expect(try await shipper.waitUntilCaughtUp(timeout: .seconds(TimeScale.scaled(60))))
                    let logged = try await Logged(store)
                    let requests = try receiver.requests()
                    try #require(requests.count >= 3, "\(requests)")
                    let refused = requests[1]
                    #expect(refused.status == 400)
                    #expect(refused.error == nil, "the body parsed: the 400 was the receiver's")
                    #expect(refused.records == 10)
                    let accepted = requests.filter { $0.status == 200 }
                    #expect(accepted.count == requests.count - 1)
                    // Never sent again, and everything else arrived.
                    let acceptedIDs = Set(accepted.flatMap(\.ids))
                    #expect(acceptedIDs.isDisjoint(with: refused.ids))
                    #expect(Set(accepted.flatMap(\.taskIDs)).isDisjoint(with: refused.taskIDs))
                    #expect(acceptedIDs.union(refused.ids) == logged.messageIDs)
                    #expect(Set(accepted.flatMap(\.taskIDs)).union(refused.taskIDs) == logged.taskIDs)
                    Self.checkAccepted(requests, logged, service: "orders", host: "web-1", apiKey: "k1")

                    let status = try await shipper.status()
                    #expect(status.setAsideRows == 10)
                    #expect(status.retries == 0)
                    #expect(status.failures == 1)
                    #expect(status.sentRequests == accepted.count)
                    #expect(status.lastError?.contains("400") == true, "\(status.lastError ?? "nil")")
                    #expect(status.isCaughtUp)

                    try await Self.stop(shipper, running)
                    let setAside = try await Self.drain(events).compactMap { event -> Int? in
                        guard case .setAside(let rows, _) = event else { return nil }
                        return rows
                    }
                    #expect(setAside == [10])
                }
                // `logstore history` shows the count, from another process.
                let text = try await SpawnedProcess.run(Self.logstore, ["history", storeURL.path], seconds: 60)
                #expect(text.status == 0, "\(text.output)")
                let lines = text.output.split(separator: "\n")
                #expect(lines.contains { $0.contains("SET ASIDE") }, "\(text.output)")
                // The shippers' table (the authors' table has a row of that name too).
                let row = try #require(lines.first { $0.hasPrefix("shipper:otlp ") && $0.contains(" otlp http://") }, "\(text.output)")
                // RETRIED, FAILED, SET ASIDE, GAPS.
                #expect(row.split(separator: " ").suffix(4) == ["0", "1", "10", "0"], "\(row)")
                let json = try await SpawnedProcess.run(Self.logstore, ["history", storeURL.path, "--json"], seconds: 60)
                #expect(json.status == 0, "\(json.output)")
                let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
                let shippers = try #require(object?["shippers"] as? [[String: Any]])
                #expect(shippers.count == 1)
                #expect(shippers.first?["setAsideRows"] as? Int == 10)
                #expect(shippers.first?["retries"] as? Int == 0)
            }
        }
    }

    /// `stop()` during the wait a `Retry-After` asked for: `run()` returns without waiting it
    /// out (nothing is in flight), and `close()` too; the rows go at the next run.
    @Test(.enabled(if: OTLPReceiver.isAvailable, OTLPReceiver.unavailable))
    func stopDuringARetryWaitReturnsAtOnce() async throws {
        try await withTemporaryStoreURL { storeURL in
            try await OTLPReceiver.with(in: storeURL.deletingLastPathComponent(), failing: "429@60") { receiver in
                try await withStore(at: storeURL) { store in
                    Self.logRows(store, "before", count: 5)
                    try await store.flush()
                }
                var configuration = Self.configuration(receiver)
                configuration.longestRetryDelay = .seconds(60)
                let shipper = try await LogShipper(storeURL: storeURL, configuration: configuration)
                let running = Task { try await shipper.run() }
                _ = try await receiver.requests(within: 30) { $0.count == 1 }
                let stopped = ContinuousClock.now
                try await Self.stop(shipper, running)
                let waited = ContinuousClock.now - stopped
                #expect(waited < .seconds(5), "run() and close() took \(waited) after stop()")
                #expect(try receiver.requests().map(\.status) == [429])

                let again = try await LogShipper(storeURL: storeURL, configuration: configuration)
                let rerun = Task { try await again.run() }
                #expect(try await again.waitUntilCaughtUp(timeout: .seconds(TimeScale.scaled(60))))
                try await Self.stop(again, rerun)
                let logged = try await withStore(at: storeURL) { try await Logged($0) }
                let requests = try receiver.requests()
                #expect(requests.map(\.status) == [429, 200])
                #expect(Set(requests[1].ids) == logged.messageIDs)
                #expect(Set(requests[1].taskIDs) == logged.taskIDs)
            }
        }
    }

    // MARK: logstore ship

    @Test(.enabled(if: OTLPReceiver.isAvailable, OTLPReceiver.unavailable))
    func logstoreShipUntilCaughtUp() async throws {
        try await withTemporaryStoreURL { storeURL in
            try await OTLPReceiver.with(in: storeURL.deletingLastPathComponent(), failing: "503") { receiver in
                try await withStore(at: storeURL) { store in
                    Self.logRows(store, "first", count: 40)
                    try await store.flush()
                }
                let arguments = [
                    "ship", storeURL.path, "--otlp", receiver.url.absoluteString, "--header", "X-Api-Key: k2",
                    "--service", "checkout", "--node", "node-7", "--until-caught-up",
                ]
                let first = try await SpawnedProcess.run(Self.logstore, arguments, seconds: 90)
                #expect(first.status == 0 && !first.timedOut, "\(first.output)")
                #expect(first.output.contains("Shipping \(storeURL.path) as shipper:otlp to otlp \(receiver.url.absoluteString)"), "\(first.output)")
                #expect(first.output.contains("retry 1 in"), "\(first.output)")
                #expect(first.output.contains("answered 503"), "\(first.output)")
                #expect(first.output.contains("1 retried, 0 set aside, 0 in gaps; caught up."), "\(first.output)")
                let firstRequests = try receiver.requests()
                try #require(firstRequests.count >= 2, "\(firstRequests)")
                #expect(firstRequests[0].status == 503)

                // Rows logged later go out at the next run, and only they: the cursor kept the rest.
                let logged = try await withStore(at: storeURL) { store in
                    Self.logRows(store, "second", count: 10)
                    try await store.flush()
                    return try await Logged(store)
                }
                let second = try await SpawnedProcess.run(Self.logstore, arguments, seconds: 90)
                #expect(second.status == 0 && !second.timedOut, "\(second.output)")
                let requests = try receiver.requests()
                let secondRequests = requests.dropFirst(firstRequests.count)
                let accepted = requests.filter { $0.status == 200 }
                #expect(Set(accepted.flatMap(\.ids)) == logged.messageIDs)
                #expect(Set(accepted.flatMap(\.taskIDs)) == logged.taskIDs)
                let firstIDs = Set(firstRequests.filter { $0.status == 200 }.flatMap(\.ids))
                #expect(Set(secondRequests.flatMap(\.ids)) == logged.messageIDs.subtracting(firstIDs))
                #expect(secondRequests.allSatisfy { $0.status == 200 })
                Self.checkAccepted(requests, logged, service: "checkout", host: "node-7", apiKey: "k2")
            }
        }
    }
}
