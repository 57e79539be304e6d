import Foundation
import LogStore
import Testing

/// `summary(_:buckets:)`: totals that agree with `count(_:)` and with the messages themselves,
/// buckets that add up, windows, deletions and empty stores.
@Suite("Summary")
struct SummaryTests {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)
    static let labels = ["db", "http", "auth"]

    /// 420 messages, one every 10 s over 70 minutes: labels cycle db, http, auth; levels cycle
    /// trace…critical every 7.
    static func fill(_ store: LogStore, count: Int = 420, offset: TimeInterval = 0) async throws {
        for index in 0..<count {
            store.storeMessage(
                createdAt: start.addingTimeInterval(offset + Double(index) * 10), label: labels[index % 3],
                level: LogStore.Level(rawValue: Int16(index % 7)) ?? .info, message: "message \(index)")
        }
        try await store.flush()
    }

    /// The summary checked against `count(_:)` per level and label, and against the messages'
    /// own times for the buckets.
    static func expectExact(
        _ store: LogStore, _ query: MessageQuery, buckets: Int = 12, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let summary = try await store.summary(query, buckets: buckets)
        let messages = try await allMessages(store, query)
        #expect(summary.total == messages.count, sourceLocation: sourceLocation)
        #expect(summary.total == (try await store.count(query)), sourceLocation: sourceLocation)
        for level in LogStore.Level.allCases {
            #expect(summary.levels[level] == messages.filter { $0.level == level }.count, "\(level)",
                sourceLocation: sourceLocation)
        }
        for label in Set(messages.map(\.label)) {
            var byLabel = query
            byLabel.labels = [label]
            #expect(summary.labels.first { $0.label == label }?.count == (try await store.count(byLabel)), "\(label)",
                sourceLocation: sourceLocation)
        }
        #expect(summary.labels.map(\.count) == summary.labels.map(\.count).sorted(by: >), sourceLocation: sourceLocation)
        #expect(summary.labels.allSatisfy { $0.count > 0 }, sourceLocation: sourceLocation)
        guard summary.total > 0, let interval = summary.interval else { return }
        #expect(summary.histogram.count == buckets, sourceLocation: sourceLocation)
        #expect(summary.histogram.map(\.total).reduce(0, +) == summary.total, sourceLocation: sourceLocation)
        #expect(summary.histogram.first?.start == interval.start, sourceLocation: sourceLocation)
        #expect(summary.histogram.last?.end == interval.end, sourceLocation: sourceLocation)
        for (bucket, next) in zip(summary.histogram, summary.histogram.dropFirst()) {
            #expect(bucket.end == next.start, sourceLocation: sourceLocation)
        }
        // Each message in the bucket its time falls in (the newest one in the last).
        for (index, bucket) in summary.histogram.enumerated() {
            let isLast = index == summary.histogram.count - 1
            let inside = messages.filter { $0.createdAt >= bucket.start && ($0.createdAt < bucket.end || isLast) }
            for level in LogStore.Level.allCases {
                #expect(bucket.levels[level] == inside.filter { $0.level == level }.count, "bucket \(index) \(level)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    @Test func totalsAndBucketsAgreeWithCountAndTheMessages() async throws {
        try await withTemporaryStore { store, _ in
            try await Self.fill(store)
            let half = Self.start.addingTimeInterval(2_100)
            let queries = [
                MessageQuery(),
                MessageQuery(levels: .warning ... .critical),
                MessageQuery(levels: .debug ... .notice, labels: ["db", "auth"]),
                MessageQuery(sessions: [store.session.id]),
                MessageQuery(since: half),
                MessageQuery(until: half),
                MessageQuery(levels: .error ... .error, labels: ["http"], since: Self.start.addingTimeInterval(600),
                             until: half),
            ]
            for query in queries {
                try await Self.expectExact(store, query)
            }
        }
    }

    @Test func aWindowSpansExactlyItsBounds() async throws {
        try await withTemporaryStore { store, _ in
            try await Self.fill(store)
            let since = Self.start.addingTimeInterval(1_000)
            let until = Self.start.addingTimeInterval(2_000)
            let summary = try await store.summary(MessageQuery(since: since, until: until), buckets: 10)
            #expect(summary.interval == DateInterval(start: since, end: until))
            // One message every 10 s, 100 s a bucket: 10 in each, the last window edge excluded.
            #expect(summary.histogram.map(\.total) == Array(repeating: 10, count: 10))
            #expect(summary.histogram[3].start == Self.start.addingTimeInterval(1_300))
            #expect(summary.total == 100)

            // Open-ended: from the oldest to the newest message, the newest in the last bucket.
            let whole = try await store.summary(MessageQuery(), buckets: 7)
            #expect(whole.interval == DateInterval(start: Self.start, end: Self.start.addingTimeInterval(4_190)))
            #expect(whole.histogram.map(\.total) == Array(repeating: 60, count: 7))
            #expect(whole.labels.map(\.label) == ["auth", "db", "http"])
            #expect(whole.levels[.critical] == 60)
            #expect(abs(whole.errorRate - 2.0 / 7.0) < 1e-9)
        }
    }

    @Test func messagesLoggedOutOfTimeOrderSetTheInterval() async throws {
        try await withTemporaryStore { store, _ in
            try await Self.fill(store, count: 50, offset: 10_000)
            // Logged last, dated first and last: the ends are the messages' times, not the ids'.
            store.storeMessage(createdAt: Self.start, label: "late", level: .error, message: "backdated")
            store.storeMessage(createdAt: Self.start.addingTimeInterval(20_000), label: "late", level: .info, message: "ahead")
            try await store.flush()
            let summary = try await store.summary(MessageQuery())
            #expect(summary.interval == DateInterval(start: Self.start, end: Self.start.addingTimeInterval(20_000)))
            #expect(summary.histogram.first?.levels[.error] == 1)
            #expect(summary.histogram.last?.levels[.info] == 1)
            try await Self.expectExact(store, MessageQuery(), buckets: 20)
            try await Self.expectExact(store, MessageQuery(labels: ["late"]), buckets: 3)
        }
    }

    @Test func countsStayExactAfterASweepAndRemoveSessions() async throws {
        let now = Self.start.addingTimeInterval(86_400 + 2_000)
        var configuration = LogStore.Configuration()
        configuration.maxAge = .seconds(86_400)
        configuration.timeSource = LogStore.TimeSource(now: { now }, sleep: { try await Task.sleep(for: $0) })
        try await withTemporaryStoreURL { url in
            let earlier = try await withStore(at: url, configuration: configuration) { store in
                try await Self.fill(store)
                return store.session.id
            }
            try await withStore(at: url, configuration: configuration) { store in
                try await Self.fill(store, count: 140, offset: 5_000)
                // The age cut-off falls in the middle of the first session's messages.
                let report = try await store.sweep()
                #expect(report.removedMessages == 200)
                for query in [MessageQuery(), MessageQuery(since: Self.start.addingTimeInterval(3_000)),
                              MessageQuery(levels: .error ... .critical, labels: ["db"])] {
                    try await Self.expectExact(store, query)
                }
                try await store.removeSessions([earlier])
                let summary = try await store.summary(MessageQuery())
                #expect(summary.total == 140)
                #expect(summary.interval?.start == Self.start.addingTimeInterval(5_000))
                try await Self.expectExact(store, MessageQuery())
                try await Self.expectExact(store, MessageQuery(sessions: [earlier]))
            }
        }
    }

    @Test func anEmptyStoreAndNoMatchGiveZeros() async throws {
        try await withTemporaryStore { store, _ in
            let empty = try await store.summary(MessageQuery())
            #expect(empty.total == 0)
            #expect(empty.interval == nil)
            #expect(empty.histogram.isEmpty)
            #expect(empty.labels.isEmpty)
            #expect(LogStore.Level.allCases.allSatisfy { empty.levels[$0] == 0 })
            #expect(empty.errorRate == 0)

            try await Self.fill(store, count: 20)
            #expect(try await store.summary(MessageQuery(labels: ["nowhere"])).histogram.isEmpty)
            #expect(try await store.summary(MessageQuery(since: Self.start.addingTimeInterval(99_999))).total == 0)
            // Both ends given: the buckets are there, all zero.
            let window = try await store.summary(
                MessageQuery(labels: ["nowhere"], since: Self.start, until: Self.start.addingTimeInterval(60)), buckets: 6)
            #expect(window.interval == DateInterval(start: Self.start, end: Self.start.addingTimeInterval(60)))
            #expect(window.histogram.map(\.total) == Array(repeating: 0, count: 6))
            #expect(window.histogram[1].start == Self.start.addingTimeInterval(10))
        }
    }

    @Test func bucketCountsAreClampedAndOneInstantFillsTheFirstBucket() async throws {
        try await withTemporaryStore { store, _ in
            store.storeMessage(createdAt: Self.start, label: "one", level: .info, message: "only")
            try await store.flush()
            let one = try await store.summary(MessageQuery(), buckets: 0)
            #expect(one.histogram.count == 1)
            let many = try await store.summary(MessageQuery(), buckets: 50_000)
            #expect(many.histogram.count == 1_000)
            #expect(many.histogram.first?.total == 1)
            #expect(many.interval == DateInterval(start: Self.start, end: Self.start))
        }
    }

    @Test func taskMessagesCountWhenTheQueryAsksForThem() async throws {
        try await withTemporaryStore { store, _ in
            try await Self.fill(store, count: 30)
            store.storeRequest(
                NetworkRequest(url: URL(string: "https://example.com/a")), response: NetworkResponse(statusCode: 500),
                error: nil, data: nil)
            try await store.flush()
            try await Self.expectExact(store, MessageQuery())
            try await Self.expectExact(store, MessageQuery(includesTaskMessages: true))
            #expect(try await store.summary(MessageQuery(includesTaskMessages: true)).total == 31)
        }
    }

    @Test func theSummaryRoundTripsThroughJSONWithLevelsByName() async throws {
        try await withTemporaryStore { store, _ in
            try await Self.fill(store, count: 14)
            let summary = try await store.summary(MessageQuery(), buckets: 4)
            let data = try JSONEncoder().encode(summary)
            #expect(try JSONDecoder().decode(MessageSummary.self, from: data) == summary)
            let object = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
            let levels = try #require(object["levels"] as? [String: Int])
            #expect(Set(levels.keys) == Set(LogStore.Level.allCases.map(\.name)))
            #expect(levels["warning"] == 2)
        }
    }
}
