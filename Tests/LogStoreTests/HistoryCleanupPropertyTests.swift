import Foundation
import Glibc
import LogStore
import Testing

/// Cleanup never deletes history a required author has not consumed: random interleavings, for
/// the required authors "a" and "b" and the batch author "n", of writes, merges (a merge hook
/// consuming), crashes (a child consuming as "a" or "b", killed with SIGKILL, inside its merge
/// when it can be), reopens, automatic cleanups (`.everyNMerges` on some authors) and manual
/// ones (`historyCleaner().clean()`), checked after every step against a model of every seq
/// ever seen in the table.
///
/// `LOGSTORE_HISTORY_TRIALS` sets the trials (4 by default: a few seconds), `LOGSTORE_HISTORY_SEED`
/// repeats a run (its seed is printed).
@Suite("History cleanup property")
struct HistoryCleanupPropertyTests {
    static let trials = ProcessInfo.processInfo.environment["LOGSTORE_HISTORY_TRIALS"].flatMap { Int($0) } ?? 4
    static let seed = ProcessInfo.processInfo.environment["LOGSTORE_HISTORY_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 0...UInt64.max)
    static let stepsPerTrial = 16
    static let required = ["a", "b"]
    /// How long the child's merge hook takes: a window for the kill to land inside the merge.
    static let hookMilliseconds = 120

    @Test func cleanupNeverDeletesWhatARequiredAuthorHasNotConsumed() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: ExitDrainTests.helper.path),
            "missing \(ExitDrainTests.helper.path)")
        print("history cleanup property: seed \(Self.seed), \(Self.trials) trials (LOGSTORE_HISTORY_SEED repeats it)")
        var random = SeededRandom(seed: Self.seed)
        var tally = Tally()
        for trial in 0..<Self.trials {
            try await withTemporaryStoreURL { url in
                var run = try await Trial(url: url, trial: trial, seed: Self.seed, random: &random)
                do {
                    for step in 0..<Self.stepsPerTrial { try await run.step(step, random: &random, tally: &tally) }
                    try await run.closeAll()
                } catch {
                    try? await run.closeAll()
                    throw error
                }
            }
        }
        print("""
            history cleanup property: seed \(Self.seed), \(Self.trials) trials, \(tally.checks) checks, \
            \(tally.merges) merges, \(tally.kills) kills (\(tally.killsInMerge) inside a merge, \
            \(tally.killsBeforeAdvance) after the hook before the cursor moved), \(tally.manualCleanups) manual and \
            \(tally.automaticCleanups) automatic cleanups
            """)
    }

    struct Tally {
        var checks = 0
        var merges = 0
        var kills = 0
        var killsInMerge = 0
        var killsBeforeAdvance = 0
        var manualCleanups = 0
        var automaticCleanups = 0
    }

    /// The table as one read saw it.
    struct Snapshot: Sendable {
        var seqs: Set<Int64> = []
        var cursors: [String: Int64] = [:]
        /// Per author, how many rows belong to a transaction that straddles its cursor (0: the
        /// cursor is at a transaction boundary).
        var straddling: [String: Int64] = [:]
        var cleanedThrough: Int64 = 0
        var lastCleanup: Double?
        /// The last seq of each author's changes.
        var lastByAuthor: [String: Int64] = [:]
        /// Each transaction still in the table (its first seq) and its author.
        var transactions: [Int64: String] = [:]
        /// Transactions whose first change is gone but not the rest (cleanup cut one in two).
        var partialTransactions: Int64 = 0

        /// min(cursor of a, cursor of b), nil while either has not registered.
        var limit: Int64? {
            let cursors = HistoryCleanupPropertyTests.required.compactMap { self.cursors[$0] }
            return cursors.count == HistoryCleanupPropertyTests.required.count ? cursors.min() : nil
        }

        /// The highest seq of a change `author` consumes (another author's), nil if none.
        func target(for author: String) -> Int64? {
            lastByAuthor.filter { $0.key != author }.values.max()
        }
    }

    /// One trial: its stores (opened as the steps need them), its model, its checks.
    struct Trial {
        let url: URL
        let context: String
        /// A store without history: it only reads the tables.
        let reader: LogStore
        var stores: [String: LogStore] = [:]
        var strategies: [String: Int] = [:]
        /// Every seq a snapshot has seen: the model of what was ever written.
        var everWritten: Set<Int64> = []
        var last = Snapshot()

        init(url: URL, trial: Int, seed: UInt64, random: inout SeededRandom) async throws {
            self.url = url
            reader = try await LogStore(storeURL: url, options: [.create])
            // 0: no automatic cleanup; k: every k merges.
            for author in HistoryCleanupPropertyTests.required { strategies[author] = Int.random(in: 0...2, using: &random) }
            context = "seed \(seed), trial \(trial), every-n \(strategies)"
        }

        static func configuration(_ author: String, every: Int) -> LogStore.Configuration {
            var configuration = LogStore.Configuration()
            configuration.history = HistoryConfiguration(
                currentAuthor: author, allAuthors: ["a", "b", "n"], batchAuthors: ["n"],
                cleanStrategy: every > 0 ? .everyNMerges(every) : .none)
            return configuration
        }

        mutating func store(_ author: String) async throws -> LogStore {
            if let store = stores[author] { return store }
            let store = try await LogStore(
                storeURL: url, options: [.create], configuration: Self.configuration(author, every: strategies[author] ?? 0))
            stores[author] = store
            return store
        }

        mutating func closeAll() async throws {
            for store in stores.values { try await store.close() }
            stores = [:]
            try await reader.close()
        }

        mutating func step(_ index: Int, random: inout SeededRandom, tally: inout Tally) async throws {
            let roll = Int.random(in: 0..<100, using: &random)
            let author = HistoryCleanupPropertyTests.required.randomElement(using: &random) ?? "a"
            let what: String
            switch roll {
            case 0..<35:
                let writer = ["a", "b", "n"].randomElement(using: &random) ?? "n"
                what = "write \(writer)"
                try await write(writer, random: &random)
            case 35..<62:
                what = "merge \(author)"
                try await merge(author, tally: &tally)
            case 62..<77:
                what = "clean"
                try await clean(random: &random, tally: &tally)
            case 77..<88:
                what = "kill \(author)"
                // Registered first, then something to consume: the child has a merge to be killed in.
                _ = try await store(author)
                try await write("n", random: &random)
                try await check("\(what) (before)", tally: &tally)
                try await crash(author, random: &random, tally: &tally)
            default:
                what = "reopen \(author)"
                try await stores.removeValue(forKey: author)?.close()
                _ = try await store(author)
            }
            try await check("step \(index): \(what)", tally: &tally)
        }

        mutating func write(_ author: String, random: inout SeededRandom) async throws {
            let store = try await store(author)
            for index in 0..<Int.random(in: 1...4, using: &random) {
                store.storeMessage(label: author, level: .info, message: "\(author) \(index)")
            }
            if Bool.random(using: &random) {
                let url = URL(string: "https://api.example.com/items")
                store.storeRequest(
                    NetworkRequest(url: url, method: "GET"), response: NetworkResponse(url: url, statusCode: 200),
                    error: nil, data: Data("{}".utf8), label: author)
            }
            try await store.flush()
        }

        /// A merge hook consumes until the cursor passes every other author's change.
        mutating func merge(_ author: String, tally: inout Tally) async throws {
            let store = try await store(author)
            let before = try await snapshot()
            guard let target = before.target(for: author), target > before.cursors[author] ?? 0 else { return }
            let delivered = CallLog<Int64>()
            let id = await store.registerMergeHook { batch in
                for transaction in batch.transactions { delivered.append(transaction.id) }
                return .goOn
            }
            do {
                try await waitFor(seconds: 20) { [reader] in
                    try await Self.snapshot(reader).cursors[author] ?? 0 >= target
                }
            } catch {
                Issue.record(error, "merge \(author) to \(target) from \(before.cursors), \(context)")
                throw error
            }
            await store.removeMergeHook(id: id)
            tally.merges += 1
            // Every other author's transaction after the cursor, once: what a killed consumer
            // had been given but not recorded comes again.
            let start = before.cursors[author] ?? 0
            let due = before.transactions.filter { $0.key > start && $0.key <= target && $0.value != author }.keys
            #expect(delivered.all == due.sorted(), "merge \(author) from \(start) to \(target), \(context)")
            let after = try await snapshot()
            if after.lastCleanup != before.lastCleanup {
                tally.automaticCleanups += 1
                // Every merge cleans: the last one cleaned through the lowest cursor as it is now.
                if strategies[author] == 1 {
                    #expect(after.cleanedThrough == after.limit, "automatic cleanup after merge \(author), \(context)")
                }
            }
        }

        /// The manual cleaner, from any open store: it cleans through the lowest required cursor.
        mutating func clean(random: inout SeededRandom, tally: inout Tally) async throws {
            let store = try await store(["a", "b", "n"].randomElement(using: &random) ?? "n")
            let before = try await snapshot()
            everWritten.formUnion(before.seqs)
            let report = try await store.historyCleaner().clean()
            let after = try await snapshot()
            tally.manualCleanups += 1
            if let low = before.limit, let high = after.limit {
                let through = try #require(report.cleanedThrough, "manual cleaner refused, \(context)")
                // Equal unless a merge moved a cursor meanwhile (none should be running).
                #expect(low <= through && through <= high, "cleaned through \(through), cursors \(before.cursors), \(context)")
                #expect(report.deletedChanges == before.seqs.filter { $0 <= through }.count, "\(context)")
            } else if before.limit == nil, after.limit == nil {
                #expect(report.cleanedThrough == nil, "cleaned before every required author registered, \(context)")
                #expect(report.deletedChanges == 0, "\(context)")
            }
        }

        /// A child consumes as `author` and is killed with SIGKILL, inside its merge when it can be.
        mutating func crash(_ author: String, random: inout SeededRandom, tally: inout Tally) async throws {
            // A quarter at a random moment after `ready`, half inside the hook, a quarter in the
            // few milliseconds after it returned, before or as the cursor moves.
            let plan = Int.random(in: 0..<4, using: &random)
            let (trigger, delay) = switch plan {
            case 0: ("ready\n", Int.random(in: 0...(HistoryCleanupPropertyTests.hookMilliseconds + 40), using: &random))
            case 3: ("merge-end ", Int.random(in: 0...3, using: &random))
            default: ("merge-start ", Int.random(in: 0..<HistoryCleanupPropertyTests.hookMilliseconds, using: &random))
            }
            let inMerge = plan > 0
            let arguments = [
                "history-consume", url.path, "0", author, String(HistoryCleanupPropertyTests.hookMilliseconds),
                String(strategies[author] ?? 0),
            ]
            let lines = try await onOwnThread {
                try runAndKill(arguments: arguments, after: trigger, delayMilliseconds: delay, giveUpSeconds: 10)
            }
            let comment = Comment(rawValue: "kill \(author) after \(trigger.trimmingCharacters(in: .whitespacesAndNewlines)) +\(delay) ms: \(lines), \(context)")
            #expect(lines.contains("ready"), comment)
            #expect(!inMerge || lines.contains { $0.hasPrefix("merge-start ") }, "no merge, \(comment)")
            #expect(!lines.contains { $0.hasPrefix("error") }, comment)
            tally.kills += 1
            let starts = lines.filter { $0.hasPrefix("merge-start ") }.count
            let ends = lines.compactMap { $0.hasPrefix("merge-end ") ? Int64($0.dropFirst("merge-end ".count)) : nil }
            if starts > ends.count { tally.killsInMerge += 1 }
            let cursor = try await snapshot().cursors[author] ?? 0
            if let last = ends.last, cursor < last { tally.killsBeforeAdvance += 1 }
        }

        /// The checks after each step, and the model's update.
        mutating func check(_ what: String, tally: inout Tally) async throws {
            let now = try await snapshot()
            let comment = Comment(rawValue: "\(what), \(context)")
            tally.checks += 1
            for (author, cursor) in last.cursors {
                #expect((now.cursors[author] ?? .min) >= cursor, "\(author)'s cursor moved back, \(comment)")
            }
            let missing = everWritten.filter { seq in now.limit.map { seq > $0 } ?? true }.subtracting(now.seqs)
            #expect(missing.isEmpty, "deleted unconsumed history \(missing.sorted()), cursors \(now.cursors), \(comment)")
            #expect(now.cleanedThrough <= now.limit ?? 0, "cleaned through \(now.cleanedThrough), cursors \(now.cursors), \(comment)")
            #expect(now.seqs.allSatisfy { $0 > now.cleanedThrough }, "a row at or below cleaned_through, \(comment)")
            #expect(now.partialTransactions == 0, "cleanup cut a transaction in two, \(comment)")
            for author in HistoryCleanupPropertyTests.required {
                #expect(now.straddling[author] ?? 0 == 0, "\(author)'s cursor is inside a transaction, \(comment)")
            }
            everWritten.formUnion(now.seqs)
            last = now
        }

        func snapshot() async throws -> Snapshot { try await Self.snapshot(reader) }

        static func snapshot(_ reader: LogStore) async throws -> Snapshot {
            try await reader.read { db in
                var snapshot = Snapshot()
                snapshot.seqs = Set(try db.rows("SELECT seq FROM history").compactMap { $0[0].integer })
                for row in try db.rows("SELECT name, cursor FROM history_authors") {
                    guard let name = row[0].text, let cursor = row[1].integer else { continue }
                    snapshot.cursors[name] = cursor
                    snapshot.straddling[name] = try db.scalar(
                        "SELECT count(*) FROM history WHERE txn <= ? AND seq > ?", [.integer(cursor), .integer(cursor)]
                    )?.integer ?? 0
                }
                for row in try db.rows("""
                    SELECT name, max(seq) FROM history JOIN history_authors ON history_authors.id = author_id GROUP BY name
                    """)
                {
                    if let name = row[0].text, let seq = row[1].integer { snapshot.lastByAuthor[name] = seq }
                }
                for row in try db.rows("""
                    SELECT DISTINCT txn, name FROM history JOIN history_authors ON history_authors.id = author_id
                    """)
                {
                    if let txn = row[0].integer, let name = row[1].text { snapshot.transactions[txn] = name }
                }
                snapshot.partialTransactions = try db.scalar("""
                    SELECT count(*) FROM (SELECT txn FROM history GROUP BY txn HAVING min(seq) <> txn)
                    """)?.integer ?? -1
                let state = try db.rows("SELECT cleaned_through, last_cleanup FROM history_state").first
                snapshot.cleanedThrough = state?[0].integer ?? 0
                snapshot.lastCleanup = state?[1].real
                return snapshot
            }
        }
    }
}
