import Foundation
import LogStore
import Testing

@Suite("Count consistency")
struct CountConsistencyTests {
    static let url = URL(string: "https://api.example.com/v1/items")!

    /// 2,000 logged messages over levels and two labels (one of them `network`, the label of the
    /// tasks' technical messages), and 40 network tasks, 10 of them failed (error level).
    static func fill(_ store: LogStore) async throws {
        let levels = LogStore.Level.allCases
        for i in 0..<2_000 {
            store.storeMessage(label: i % 2 == 0 ? "app" : "network", level: levels[i % levels.count],
                               message: "message \(i)")
        }
        for i in 0..<40 {
            store.storeRequest(NetworkRequest(url: Self.url),
                               response: NetworkResponse(url: Self.url, statusCode: i < 10 ? 500 : 200),
                               error: nil, data: nil)
        }
        try await store.flush()
    }

    /// The same filters answered three ways: `count` without a window (kept counts), `count`
    /// over all time (rows), and paging through every row.
    static func answers(_ store: LogStore, _ query: MessageQuery) async throws -> [Int] {
        var windowed = query
        windowed.since = .distantPast
        windowed.until = .distantFuture
        return [
            try await store.count(query),
            try await store.count(windowed),
            try await allMessages(store, query).count,
            try await allMessages(store, windowed).count,
        ]
    }

    @Test func countPagesAndInfoAgreeOnLoggedMessages() async throws {
        try await withTemporaryStore { store, _ in
            try await Self.fill(store)
            #expect(try await Self.answers(store, MessageQuery()) == [2_000, 2_000, 2_000, 2_000])
            #expect(try await store.info().messageCount == 2_000)
            // Filters the technical messages would match: their label and their levels.
            #expect(try await Self.answers(store, MessageQuery(labels: ["network"])) == [1_000, 1_000, 1_000, 1_000])
            let errors = MessageQuery(levels: .error ... .critical, labels: ["network"])
            let expectedErrors = (0..<2_000).filter { $0 % 2 == 1 && $0 % 7 >= 5 }.count
            #expect(try await Self.answers(store, errors) == Array(repeating: expectedErrors, count: 4))
        }
    }

    @Test func includingTaskMessagesCountsThemEverywhere() async throws {
        try await withTemporaryStore { store, _ in
            try await Self.fill(store)
            #expect(try await Self.answers(store, MessageQuery(includesTaskMessages: true))
                == [2_040, 2_040, 2_040, 2_040])
            #expect(try await Self.answers(store, MessageQuery(labels: ["network"], includesTaskMessages: true))
                == [1_040, 1_040, 1_040, 1_040])
            let errors = MessageQuery(levels: .error ... .critical, labels: ["network"], includesTaskMessages: true)
            let expectedErrors = (0..<2_000).filter { $0 % 2 == 1 && $0 % 7 >= 5 }.count + 10
            #expect(try await Self.answers(store, errors) == Array(repeating: expectedErrors, count: 4))
            let debug = MessageQuery(levels: .debug ... .debug, includesTaskMessages: true)
            let expectedDebug = (0..<2_000).filter { $0 % 7 == 1 }.count + 30
            #expect(try await Self.answers(store, debug) == Array(repeating: expectedDebug, count: 4))
        }
    }

    /// `info()` read while the writer commits: once it says nothing is pending, its counts
    /// include everything logged before the call. (It once read the rows before the pending
    /// count, so a commit landing between the two showed "0 pending" beside rows that did not
    /// hold the batch yet.) Each round logs one message and polls until nothing is pending.
    @Test func infoWithNothingPendingCountsEverythingLogged() async throws {
        var configuration = LogStore.Configuration()
        configuration.saveInterval = .milliseconds(1)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            let deadline = ContinuousClock.now + .seconds(TimeScale.scaled(60))  // a bound, not a wait
            for round in 1...300 {
                store.storeMessage(label: "app", level: .info, message: "round \(round)")
                var info = try await store.info()
                while info.pendingEventCount > 0, ContinuousClock.now < deadline {
                    info = try await store.info()
                }
                try #require(info.messageCount == round, "round \(round): \(info.pendingEventCount) pending")
            }
        }
    }
}
