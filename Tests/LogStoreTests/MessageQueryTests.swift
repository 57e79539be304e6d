import Foundation
import LogStore
import Testing

@Suite("Message queries")
struct MessageQueryTests {
    /// What the fixture logged, in logging order: the model every query result is checked against.
    struct Logged: Equatable {
        var text: String
        var label: String
        var level: LogStore.Level
        var createdAt: Date
        var session: UUID
    }

    static let labels = ["http", "db", "auth"]
    /// Whole seconds, an hour ago: exact as SQLite REALs, and within every retention limit.
    static let base = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3600).rounded(.down))

    /// Logs `count` messages: labels and levels cycle at different rates so every combination
    /// occurs, and message `i` is dated `base + offset + i` seconds.
    static func log(_ count: Int, into store: LogStore, offset: Int = 0) -> [Logged] {
        (0..<count).map { i in
            let n = offset + i
            let logged = Logged(
                text: "message \(n)", label: labels[n % labels.count],
                level: LogStore.Level.allCases[(n / 2) % LogStore.Level.allCases.count],
                createdAt: base.addingTimeInterval(Double(n)), session: store.session.id)
            store.storeMessage(
                createdAt: logged.createdAt, label: logged.label, level: logged.level, message: logged.text)
            return logged
        }
    }

    /// A store holding `count` messages from one session.
    static func withFixture<T>(
        count: Int = 70, _ body: (LogStore, [Logged]) async throws -> T
    ) async throws -> T {
        try await withTemporaryStore { store, _ in
            let logged = log(count, into: store)
            try await store.flush()
            return try await body(store, logged)
        }
    }

    /// The texts of one page of results.
    static func texts(_ store: LogStore, _ query: MessageQuery) async throws -> [String] {
        try await store.messages(query).messages.map(\.text)
    }

    // MARK: Filters

    @Test(arguments: [
        LogStore.Level.warning ... .critical, .trace ... .debug, .info ... .info, .notice ... .error,
        .trace ... .critical, .critical ... .critical,
    ])
    func levelRange(_ levels: ClosedRange<LogStore.Level>) async throws {
        try await Self.withFixture { store, logged in
            let expected = logged.filter { levels.contains($0.level) }.reversed().map(\.text)
            #expect(!expected.isEmpty)
            let texts = try await Self.texts(store, MessageQuery(levels: levels, limit: 1_000))
            #expect(texts == Array(expected))
        }
    }

    @Test func labels() async throws {
        try await Self.withFixture { store, logged in
            for labels in [["http"], ["db", "auth"], ["auth", "http", "db"]] {
                let expected = logged.filter { labels.contains($0.label) }.map(\.text)
                let texts = try await Self.texts(store, MessageQuery(labels: labels, order: .oldestFirst, limit: 1_000))
                #expect(texts == expected, "\(labels)")
            }
            // An unknown label among known ones matches nothing more.
            let mixed = try await Self.texts(store, MessageQuery(labels: ["db", "nope"], order: .oldestFirst, limit: 1_000))
            #expect(mixed == logged.filter { $0.label == "db" }.map(\.text))
        }
    }

    @Test func repeatedLabelsOrSessionsMatchEachMessageOnce() async throws {
        try await Self.withFixture { store, logged in
            let query = MessageQuery(
                labels: ["db", "auth", "db"], sessions: [store.session.id, store.session.id], order: .oldestFirst,
                limit: 1_000)
            let expected = logged.filter { ["db", "auth"].contains($0.label) }.map(\.text)
            let texts = try await Self.texts(store, query)
            #expect(texts == expected)

            var withLevels = query
            withLevels.levels = .info ... .error
            let expectedWithLevels = logged.filter {
                ["db", "auth"].contains($0.label) && (.info ... .error).contains($0.level)
            }.map(\.text)
            let textsWithLevels = try await Self.texts(store, withLevels)
            #expect(textsWithLevels == expectedWithLevels)
            let count = try await store.count(withLevels)
            #expect(count == expectedWithLevels.count)
        }
    }

    @Test func unknownLabelOrSessionMatchesNothing() async throws {
        try await Self.withFixture { store, _ in
            for query in [MessageQuery(labels: ["nope"]), MessageQuery(sessions: [UUID()]),
                          MessageQuery(labels: ["NOPE", "Http"])] {
                let page = try await store.messages(query)
                #expect(page.messages.isEmpty)
                #expect(page.nextCursor == nil)
            }
        }
    }

    @Test func sessions() async throws {
        try await withTemporaryStoreURL { url in
            let first = try await withStore(at: url) { store in
                let logged = Self.log(30, into: store)
                try await store.flush()
                return logged
            }
            try await withStore(at: url) { store in
                let second = Self.log(20, into: store, offset: 30)
                try await store.flush()
                let firstID = try #require(first.first?.session)
                let secondID = store.session.id
                #expect(firstID != secondID)

                let cases: [([UUID], [Logged])] = [
                    ([firstID], first), ([secondID], second), ([firstID, secondID], first + second),
                    ([UUID(), secondID], second),
                ]
                for (sessions, expected) in cases {
                    let page = try await store.messages(MessageQuery(sessions: sessions, order: .oldestFirst, limit: 1_000))
                    #expect(page.messages.map(\.text) == expected.map(\.text))
                    #expect(page.messages.map(\.sessionID) == expected.map(\.session))
                }
            }
        }
    }

    @Test func interleavedSessions() async throws {
        // Two stores open on one directory at once, as two processes would be: their sessions'
        // messages interleave in id order.
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { first in
                try await withStore(at: url) { second in
                    var logged: [Logged] = []
                    for round in 0..<10 {
                        logged += Self.log(3, into: first, offset: round * 5)
                        try await first.flush()
                        logged += Self.log(2, into: second, offset: round * 5 + 3)
                        try await second.flush()
                    }
                    let ids = [first.session.id, second.session.id]
                    for store in [first, second] {
                        for sessions in [[ids[0]], [ids[1]], ids] {
                            let expected = logged.filter { sessions.contains($0.session) }
                            let page = try await store.messages(
                                MessageQuery(sessions: sessions, order: .oldestFirst, limit: 1_000))
                            #expect(page.messages.map(\.text) == expected.map(\.text))
                            #expect(page.messages.map(\.sessionID) == expected.map(\.session))
                            // With a time window and a level range as well.
                            let window = MessageQuery(
                                levels: .debug ... .error, sessions: sessions, since: logged[12].createdAt,
                                until: logged[40].createdAt, order: .newestFirst, limit: 1_000)
                            let windowed = expected.filter {
                                $0.createdAt >= logged[12].createdAt && $0.createdAt < logged[40].createdAt
                                    && (.debug ... .error).contains($0.level)
                            }
                            #expect(try await Self.texts(store, window) == windowed.reversed().map(\.text))
                        }
                    }
                }
            }
        }
    }

    @Test func sinceIsInclusiveAndUntilExclusive() async throws {
        try await Self.withFixture { store, logged in
            let since = logged[10].createdAt
            let until = logged[20].createdAt
            let both = try await Self.texts(store, MessageQuery(since: since, until: until, order: .oldestFirst, limit: 1_000))
            #expect(both == logged[10..<20].map(\.text))
            let onlySince = try await Self.texts(store, MessageQuery(since: since, order: .oldestFirst, limit: 1_000))
            #expect(onlySince == logged[10...].map(\.text))
            let onlyUntil = try await Self.texts(store, MessageQuery(until: until, order: .oldestFirst, limit: 1_000))
            #expect(onlyUntil == logged[..<20].map(\.text))
            // Between two messages, and an empty range.
            let between = try await Self.texts(
                store, MessageQuery(since: since.addingTimeInterval(0.5), until: until.addingTimeInterval(0.5), limit: 1_000))
            #expect(between == logged[11...20].reversed().map(\.text))
            #expect(try await Self.texts(store, MessageQuery(since: until, until: since)).isEmpty)
        }
    }

    @Test func timeWindowsAtEveryBatchBoundary() async throws {
        // 10,000 messages one second apart, committed in batches of 250: whatever size the
        // store's internal blocks have, they begin and end at batch boundaries.
        let batch = 250
        try await withTemporaryStore { store, _ in
            var logged: [Logged] = []
            for start in stride(from: 0, to: 10_000, by: batch) {
                logged += Self.log(batch, into: store, offset: start)
                try await store.flush()
            }
            let session = store.session.id
            for k in stride(from: batch, to: 10_000, by: batch) {
                let date = logged[k].createdAt
                let around = try await Self.texts(
                    store, MessageQuery(since: logged[k - 1].createdAt, until: logged[k + 1].createdAt))
                #expect(around == ["message \(k)", "message \(k - 1)"])
                let after = try await Self.texts(store, MessageQuery(since: date, order: .oldestFirst, limit: 2))
                #expect(after == ["message \(k)", "message \(k + 1)"])
                let before = try await Self.texts(store, MessageQuery(until: date, limit: 2))
                #expect(before == ["message \(k - 1)", "message \(k - 2)"])
                let inSession = try await Self.texts(
                    store, MessageQuery(sessions: [session], since: date, until: date.addingTimeInterval(0.5)))
                #expect(inSession == ["message \(k)"])
            }
        }
    }

    @Test func filtersCombine() async throws {
        try await Self.withFixture(count: 200) { store, logged throws in
            let query = MessageQuery(
                levels: .notice ... .critical, labels: ["db", "auth"], since: logged[25].createdAt,
                until: logged[175].createdAt, order: .oldestFirst, limit: 1_000)
            let expected = logged[25..<175].filter {
                $0.level >= .notice && ["db", "auth"].contains($0.label)
            }.map(\.text)
            #expect(expected.count > 10)
            #expect(try await Self.texts(store, query) == expected)
        }
    }

    /// Rare errors in a busy label, and a label whose errors are plentiful: the query walks the
    /// level index for the first (its label walk would pass thousands of rows per match) and
    /// the label index for the second; both must return exactly the matches, newest first.
    @Test func labelsWithRareAndCommonLevelsBothFindEveryMatch() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                for i in 0..<3_000 {
                    store.storeMessage(label: "busy", level: i % 1_000 == 999 ? .error : .info, message: "busy \(i)")
                    if i % 10 == 0 { store.storeMessage(label: "noisy", level: .error, message: "noisy \(i)") }
                }
                try await store.flush()
                let rare = try await store.messages(MessageQuery(levels: .error ... .critical, labels: ["busy"], limit: 10))
                #expect(rare.messages.map(\.text) == ["busy 2999", "busy 1999", "busy 999"])
                #expect(rare.nextCursor == nil)
                let common = try await store.messages(MessageQuery(levels: .warning ... .critical, labels: ["noisy"], limit: 2))
                #expect(common.messages.map(\.text) == ["noisy 2990", "noisy 2980"])
                let both = try await store.messages(
                    MessageQuery(levels: .error ... .critical, labels: ["busy", "noisy"], limit: 3))
                #expect(both.messages.map(\.text) == ["busy 2999", "noisy 2990", "noisy 2980"])
                #expect(try await store.count(MessageQuery(levels: .error ... .critical, labels: ["busy"])) == 3)
                let none = try await store.messages(MessageQuery(levels: .critical ... .critical, labels: ["busy"]))
                #expect(none.messages.isEmpty)
            }
        }
    }

    @Test func randomQueriesMatchAModel() async throws {
        var random = SeededRandom(seed: 0x5EED)
        let labels = (0..<12).map { "label\($0)" }
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { first in
                try await withStore(at: url) { second in
                    // Out-of-order dates, two interleaved sessions, over several message blocks.
                    var logged: [Logged] = []
                    for batch in 0..<40 {
                        let store = batch.isMultiple(of: 3) ? second : first
                        for i in 0..<250 {
                            let message = Logged(
                                text: "b\(batch) m\(i)", label: labels[Int(random.next() % 12)],
                                level: LogStore.Level.allCases[Int(random.next() % 7)],
                                createdAt: Self.base.addingTimeInterval(Double(random.next() % 100_000) / 10),
                                session: store.session.id)
                            store.storeMessage(
                                createdAt: message.createdAt, label: message.label, level: message.level,
                                message: message.text)
                            logged.append(message)
                        }
                        try await store.flush()
                    }
                    #expect(try await allMessages(first).map(\.text) == logged.map(\.text))

                    for _ in 0..<120 {
                        var query = MessageQuery(limit: Int(1 + random.next() % 300))
                        query.order = random.next() % 2 == 0 ? .newestFirst : .oldestFirst
                        if random.next() % 2 == 0 {
                            let a = LogStore.Level.allCases[Int(random.next() % 7)]
                            let b = LogStore.Level.allCases[Int(random.next() % 7)]
                            query.levels = min(a, b) ... max(a, b)
                        }
                        if random.next() % 2 == 0 {
                            query.labels = (0..<(1 + random.next() % 12)).map { _ in labels[Int(random.next() % 12)] }
                        }
                        if random.next() % 3 == 0 {
                            query.sessions = [random.next() % 2 == 0 ? first.session.id : second.session.id]
                        }
                        if random.next() % 2 == 0 {
                            query.since = Self.base.addingTimeInterval(Double(random.next() % 100_000) / 10)
                        }
                        if random.next() % 2 == 0 {
                            query.until = Self.base.addingTimeInterval(Double(random.next() % 100_000) / 10)
                        }
                        var expected = logged.filter { message in
                            (query.levels?.contains(message.level) ?? true)
                                && (query.labels.isEmpty || query.labels.contains(message.label))
                                && (query.sessions.isEmpty || query.sessions.contains(message.session))
                                && (query.since.map { message.createdAt >= $0 } ?? true)
                                && (query.until.map { message.createdAt < $0 } ?? true)
                        }.map(\.text)
                        if query.order == .newestFirst { expected.reverse() }

                        // Up to three pages, each compared with the model.
                        var offset = 0
                        for _ in 0..<3 {
                            let page = try await first.messages(query)
                            let want = Array(expected[offset..<min(expected.count, offset + query.limit)])
                            #expect(page.messages.map(\.text) == want, "\(query)")
                            offset += want.count
                            #expect((page.nextCursor != nil) == (offset < expected.count), "\(query)")
                            guard let cursor = page.nextCursor else { break }
                            query.cursor = cursor
                        }
                        query.cursor = nil
                        #expect(try await second.count(query) == expected.count, "\(query)")
                    }
                }
            }
        }
    }

    // MARK: Order and limit

    @Test func bothOrders() async throws {
        try await Self.withFixture { store, logged in
            let newest = try await store.messages(MessageQuery(order: .newestFirst, limit: 1_000)).messages
            let oldest = try await store.messages(MessageQuery(order: .oldestFirst, limit: 1_000)).messages
            #expect(oldest.map(\.text) == logged.map(\.text))
            #expect(newest.map(\.text) == logged.reversed().map(\.text))
            #expect(oldest.map(\.id) == oldest.map(\.id).sorted())
            #expect(Set(oldest.map(\.id)).count == logged.count)
            #expect(oldest.map(\.createdAt) == logged.map(\.createdAt))
            // The default order is newest first.
            #expect(try await Self.texts(store, MessageQuery(limit: 3)) == logged.suffix(3).reversed().map(\.text))
        }
    }

    @Test func limit() async throws {
        try await Self.withFixture(count: 30) { store, logged in
            #expect(try await Self.texts(store, MessageQuery(limit: 7)) == logged.suffix(7).reversed().map(\.text))
            #expect(try await Self.texts(store, MessageQuery(order: .oldestFirst, limit: 7)) == logged.prefix(7).map(\.text))
            // At least one message per page, whatever the limit says.
            #expect(try await Self.texts(store, MessageQuery(limit: 0)) == ["message 29"])
            #expect(try await Self.texts(store, MessageQuery(limit: -5)) == ["message 29"])
            let all = try await store.messages(MessageQuery(limit: 100))
            #expect(all.messages.count == 30)
            #expect(all.nextCursor == nil)
        }
    }

    // MARK: Pagination

    @Test(arguments: [MessageQuery.SortOrder.newestFirst, .oldestFirst])
    func keysetPaginationVisitsEveryMessageOnce(_ order: MessageQuery.SortOrder) async throws {
        try await Self.withFixture(count: 95) { store, logged in
            for levels in [nil, LogStore.Level.info ... .error] as [ClosedRange<LogStore.Level>?] {
                var query = MessageQuery(levels: levels, order: order, limit: 10)
                let matching = logged.filter { levels?.contains($0.level) ?? true }.map(\.text)
                let expected = order == .oldestFirst ? matching : matching.reversed()

                var pages: [[String]] = []
                while pages.count <= 20 {
                    let page = try await store.messages(query)
                    pages.append(page.messages.map(\.text))
                    guard let cursor = page.nextCursor else { break }
                    query.cursor = cursor
                }
                // No duplicates, no gaps, and the walk ends with a page whose cursor is nil.
                #expect(pages.flatMap { $0 } == expected)
                #expect(pages.count == (expected.count + 9) / 10)
                #expect(pages.dropLast().allSatisfy { $0.count == 10 })
                #expect(pages.last.map { !$0.isEmpty } == true)
            }
        }
    }

    @Test func lastFullPageHasNoCursor() async throws {
        // 30 messages in pages of 10: the third page is the last, so it has no cursor.
        try await Self.withFixture(count: 30) { store, _ in
            var query = MessageQuery(limit: 10)
            var counts: [Int] = []
            while counts.count <= 5 {
                let page = try await store.messages(query)
                counts.append(page.messages.count)
                guard let cursor = page.nextCursor else { break }
                query.cursor = cursor
            }
            #expect(counts == [10, 10, 10])
        }
    }

    @Test func paginationIsStableWhileNewMessagesArrive() async throws {
        try await Self.withFixture(count: 25) { store, logged in
            var query = MessageQuery(limit: 10)
            let first = try await store.messages(query)
            // Messages logged after the first page do not shift the pages that follow it.
            _ = Self.log(5, into: store, offset: 1_000)
            try await store.flush()
            let cursor = try #require(first.nextCursor)
            query.cursor = cursor
            let second = try await store.messages(query)
            #expect(first.messages.map(\.text) == logged[15..<25].reversed().map(\.text))
            #expect(second.messages.map(\.text) == logged[5..<15].reversed().map(\.text))
        }
    }

    @Test func cursorTextRoundTrips() async throws {
        let cursor = MessageQuery.Cursor(lastID: 42)
        #expect(MessageQuery.Cursor(cursor.description) == cursor)
        #expect(MessageQuery.Cursor(MessageQuery.Cursor(lastID: 0).description)?.lastID == 0)
        for text in ["", "m", "42", "m-1", "mx", "m4 2", "M42", "m42x", " m42", "m99999999999999999999"] {
            #expect(MessageQuery.Cursor(text) == nil, "\(text.debugDescription)")
        }

        try await Self.withFixture(count: 25) { store, _ in
            var query = MessageQuery(order: .oldestFirst, limit: 10)
            let first = try await store.messages(query)
            let text = try #require(first.nextCursor).description
            // Handed to a user and typed back in, the cursor continues where the page ended.
            let parsed = try #require(MessageQuery.Cursor(text))
            query.cursor = parsed
            let second = try await Self.texts(store, query)
            #expect(second == (10..<20).map { "message \($0)" })
        }
    }
}
