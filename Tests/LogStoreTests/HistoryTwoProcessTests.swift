import Foundation
import LogStore
import Testing

/// Two processes, each an author, log into one store at once, each with a merge hook that
/// prints what it is given (`LogStoreTestHelper history-author`, HistoryMode.swift). Read back
/// from the history table afterwards: each saw exactly the other's transactions (and its own,
/// when asked), each once, in order, grouped as the table groups them; then both run again, and
/// across the restart nothing is delivered twice and nothing is missed.
@Suite("History across two processes")
struct HistoryTwoProcessTests {
    static let authors = ["alpha", "beta"]
    /// Messages each child logs per run (a task every fifth, four events per transaction).
    static let messagesPerRun = 40

    @Test(arguments: [false, true])
    func eachAuthorSeesTheOthersChangesOnceInOrderAcrossARestart(includesOwnChanges: Bool) async throws {
        let helper = ExitDrainTests.helper
        try #require(FileManager.default.isExecutableFile(atPath: helper.path), "missing \(helper.path)")
        try await withTemporaryStoreURL { url in
            // Both registered before either child runs: each child's first changes are then
            // after the other's cursor, and the expectation is the table after that point.
            for author in Self.authors {
                var configuration = LogStore.Configuration()
                configuration.history = HistoryConfiguration(currentAuthor: author, allAuthors: Set(Self.authors))
                try await withStore(at: url, options: [.create], configuration: configuration) { _ in }
            }
            let initial = try await Self.cursors(url)

            var delivered: [String: [String]] = [:]
            var caughtUp: [[String: Int64]] = []
            for run in 0..<2 {
                let reports = try await Self.runBoth(helper, url, run: run, includesOwnChanges: includesOwnChanges)
                var cursors: [String: Int64] = [:]
                for (author, report) in reports {
                    let context = Comment(rawValue: "run \(run), \(author): \(report.output)")
                    #expect(report.status == 0, context)
                    let lines = report.output.split(separator: "\n").map(String.init)
                    #expect(!lines.contains { $0.hasPrefix("error") }, context)
                    let cursor = lines.last { $0.hasPrefix("caught-up ") }.flatMap { Int64($0.dropFirst("caught-up ".count)) }
                    let caught: Int64 = try #require(cursor, context)
                    cursors[author] = caught
                    delivered[author, default: []] += lines.filter { $0.hasPrefix("txn ") }
                }
                caughtUp.append(cursors)
            }

            let table = try await Self.transactions(url)
            let final = try await Self.cursors(url)
            for author in Self.authors {
                let other = Self.authors.first { $0 != author } ?? author
                let start = try #require(initial[author])
                let end = try #require(final[author])
                // The cursor the child waited for is the stored one (it may since have moved past
                // the child's own last changes, which is all a merge does on its own after 5 s).
                #expect(end >= caughtUp[1][author] ?? .max, "\(author): the stored cursor is behind what the child consumed")
                // Every transaction this author consumes, from its cursor after registration.
                let due = table.filter { $0.first > start && ($0.author == other || includesOwnChanges) }
                #expect(due.allSatisfy { $0.last <= end }, "\(author) left changes unconsumed")
                let got = delivered[author] ?? []
                #expect(Set(got).count == got.count, "\(author) was given a transaction twice")
                #expect(got == due.map(\.line), "\(author): delivered \(got), expected \(due.map(\.line))")
                if !includesOwnChanges { #expect(!got.contains { $0.contains(" \(author) ") }, "\(author) got its own") }
                // The second run's deliveries all come after what the first consumed.
                let firstRunCursor = try #require(caughtUp[0][author])
                let second = got.dropFirst(due.filter { $0.last <= firstRunCursor }.count)
                #expect(second.allSatisfy { line in due.first { $0.line == line }.map { $0.first > firstRunCursor } ?? false })
                // Both logged something that reached the other each run: a real interleaving.
                #expect(due.filter { $0.author == other }.count >= 2 * (Self.messagesPerRun / 4))
            }
        }
    }

    /// Runs both children at once, to their end; their reports by author.
    static func runBoth(_ helper: URL, _ url: URL, run: Int, includesOwnChanges: Bool) async throws -> [(String, ManyWritersTests.ChildReport)] {
        try await withThrowingTaskGroup(of: (String, ManyWritersTests.ChildReport).self) { group in
            for author in authors {
                let other = authors.first { $0 != author } ?? author
                let arguments = [
                    "history-author", url.path, String(messagesPerRun), author, other, includesOwnChanges ? "1" : "0", String(run),
                ]
                group.addTask { (author, try await ManyWritersTests.run(helper, arguments, seconds: 45)) }
            }
            var reports: [(String, ManyWritersTests.ChildReport)] = []
            for try await report in group { reports.append(report) }
            return reports.sorted { $0.0 < $1.0 }
        }
    }

    /// One transaction of the table, in the form the helper prints it.
    struct Transaction: Sendable {
        let first: Int64
        let last: Int64
        let author: String
        let line: String
    }

    /// The history table's transactions in seq order, each grouped by `txn`.
    static func transactions(_ url: URL) async throws -> [Transaction] {
        try await withStore(at: url, options: [.readonly]) { store in
            let rows = try await store.read { db in
                try db.rows("""
                    SELECT seq, txn, name, entity, operation, row_count FROM history
                    JOIN history_authors ON history_authors.id = history.author_id ORDER BY seq
                    """)
            }
            var transactions: [Transaction] = []
            var current: (txn: Int64, author: String, changes: [String], last: Int64)?
            func close() {
                guard let done = current else { return }
                transactions.append(Transaction(
                    first: done.txn, last: done.last, author: done.author,
                    line: "txn \(done.txn) \(done.author) \(done.changes.joined(separator: ","))"))
            }
            for row in rows {
                let seq = row[0].integer ?? -1
                let txn = row[1].integer ?? -1
                let author = row[2].text ?? "?"
                let entity = (row[3].integer).flatMap { HistoryEntity(rawValue: Int($0)) }.map { "\($0)" } ?? "?"
                let operation = (row[4].integer).flatMap { HistoryOperation(rawValue: Int($0)) }.map { "\($0)" } ?? "?"
                let change = "\(seq):\(entity):\(operation):\(row[5].integer ?? -1)"
                if current?.txn == txn {
                    current?.changes.append(change)
                    current?.last = seq
                } else {
                    close()
                    current = (txn, author, [change], seq)
                }
            }
            close()
            return transactions
        }
    }

    /// Every author's stored cursor.
    static func cursors(_ url: URL) async throws -> [String: Int64] {
        try await withStore(at: url, options: [.readonly]) { store in
            let rows = try await store.read { db in try db.rows("SELECT name, cursor FROM history_authors") }
            var cursors: [String: Int64] = [:]
            for row in rows { if let name = row[0].text, let cursor = row[1].integer { cursors[name] = cursor } }
            return cursors
        }
    }
}
