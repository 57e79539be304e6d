import CBenchBaseline
import Foundation
import LogStore

/// `ingest.fts_messages_per_s`, `search.*`, `query.metadata_ms` and `search.backfill_s`: full-text
/// search, on a store filled with the index on, beside a naive C program that keeps an FTS5
/// index of the same rows (one index insert per row) and `LIKE` / `json_extract` scans of them.
struct SearchBenchmark {
    let rows: Int
    let directory: URL

    /// A word of the generated text in ~0.05 % of the messages: `in 1234 ms` (the duration
    /// takes 2000 values), and a few more where the request number, user or byte count is 1234.
    static let word = "1234"
    /// A two-word phrase: only the duration, so `LIKE '%in 1234%'` finds the same rows.
    static let phrase = "in 1234"
    /// A user id: the generator writes `user` in half the rows' metadata, 100,000 values.
    static let user = "4242"

    func run() async throws -> [Figure] {
        var figures: [Figure] = []
        let storeURL = directory.appendingPathComponent("search.logstore")
        let naivePath = directory.appendingPathComponent("search-naive.sqlite").path

        // Ingest with the index on, until every message is searchable, beside the naive C loop
        // that indexes each row in its transaction.
        let searchable = try await Self.ingest(rows: rows, at: storeURL, searchIndex: true)
        print(String(
            format: "search: %d messages committed in %.2f s, searchable in %.2f s (%.2f s of CPU)", Int32(rows),
            searchable.committedSeconds, searchable.searchableSeconds, searchable.cpuSeconds))
        sync()
        let baselineSeconds = try CBaselineProcess.insertWithSearch(rows: rows, path: naivePath)
        figures.append(Figure(
            name: "ingest.fts_messages_per_s", value: Double(rows) / searchable.searchableSeconds,
            baseline: Double(rows) / baselineSeconds, unit: "msg/s",
            baselineDescription: "C, prepared INSERT + FTS5 insert per row (default options, external content), "
                + "10k rows/txn, naive schema, WAL+NORMAL; ours: search on, until `flush()` and "
                + "`unindexedMessageCount == 0`",
            target: "≥ 1.0× (aim 2×)"))
        try printSizes(storePath: storeURL.appendingPathComponent("logs.sqlite").path, naivePath: naivePath)

        figures += try await queries(storeURL: storeURL, naivePath: naivePath)
        figures.append(try await backfill(naivePath: naivePath))
        return figures
    }

    // MARK: Ingest

    struct IngestTimes {
        var committedSeconds: Double
        var searchableSeconds: Double
        /// CPU time of the whole process (producers, writer, index) until searchable: less
        /// sensitive than wall time to what else the machine runs.
        var cpuSeconds: Double
    }

    /// Fills a new store from 4 producers, as `ingest.messages_per_s` does, and times it until
    /// `flush()` returns and, with the index on, until the index has caught up (polled every
    /// ~5 ms). The store is closed on return.
    static func ingest(rows: Int, at url: URL, searchIndex: Bool) async throws -> IngestTimes {
        var configuration = LogStore.Configuration()
        configuration.overflowPolicy = .waitForSpace
        configuration.isSearchIndexEnabled = searchIndex
        sync()
        let store = try await LogStore(storeURL: url, options: [.create], configuration: configuration)
        let start = Measure.now()
        let startCPU = Measure.processCPUSeconds()
        await withTaskGroup(of: [UInt32].self) { group in
            for producer in 0..<IngestBenchmark.producers {
                group.addTask { IngestBenchmark.produce(into: store, producer: producer, rows: rows) }
            }
            for await _ in group {}
        }
        try await store.flush()
        let committed = Measure.seconds(since: start)
        var info = try await store.info()
        while searchIndex && info.unindexedMessageCount > 0 {
            try await Task.sleep(for: .milliseconds(5))
            info = try await store.info()
        }
        let searchable = Measure.seconds(since: start)
        let cpu = Measure.processCPUSeconds() - startCPU
        guard info.messageCount == rows, info.droppedEventCount == 0 else {
            throw BenchError.failed("stored \(info.messageCount) of \(rows), dropped \(info.droppedEventCount)")
        }
        if searchIndex {
            // Queries are measured on a settled store, as a server's is between bursts: once
            // logging pauses the writer merges the index's segments in short steps. Outside the
            // timed part.
            try await Task.sleep(for: .seconds(2))
        }
        try await store.close()
        return IngestTimes(committedSeconds: committed, searchableSeconds: searchable, cpuSeconds: cpu)
    }

    // MARK: Queries

    private func queries(storeURL: URL, naivePath: String) async throws -> [Figure] {
        var figures: [Figure] = []
        let store = try await LogStore(storeURL: storeURL, options: [])
        let unindexed = try await store.info().unindexedMessageCount
        guard unindexed == 0 else { throw BenchError.failed("\(unindexed) messages unindexed on reopening") }

        // A word, newest first.
        let wordQuery = MessageQuery(text: .plain(Self.word), limit: 100)
        let wordCount = try await store.count(wordQuery)
        let naiveWordCount = try Self.cQuery(
            naivePath, "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?", "text : \(Self.word)").rows
        let likeWordCount = try Self.cQuery(naivePath, "SELECT id FROM messages WHERE text LIKE ?", "%\(Self.word)%").rows
        guard wordCount > 0, wordCount == naiveWordCount else {
            throw BenchError.failed("\"\(Self.word)\": the store counts \(wordCount), the naive FTS5 index \(naiveWordCount)")
        }
        let share = String(format: "%.3f", Double(wordCount) * 100 / Double(rows))
        print("search: \"\(Self.word)\" is in \(wordCount) messages (\(share) %; the naive FTS5 index agrees), "
            + "LIKE '%\(Self.word)%' matches \(likeWordCount)")
        let wordMs = try await Self.median(store, wordQuery, expected: min(100, wordCount)) { message in
            message.text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).contains { $0 == Self.word }
        }
        let likeWord = try Self.cQuery(naivePath, Self.likeLatestSQL, "%\(Self.word)%", repeats: 7)
        let naiveFTS = try Self.cQuery(naivePath, Self.naiveFTSLatestSQL, "text : \(Self.word)", repeats: 21)
        print("search: the naive FTS5 index, latest 100 by rowid: \(String(format: "%.3f", naiveFTS.ms)) ms (\(naiveFTS.rows) rows)")
        figures.append(Figure(
            name: "search.fts_ms", value: wordMs, baseline: likeWord.ms, unit: "ms",
            baselineDescription: "C: `text LIKE '%\(Self.word)%' ORDER BY created_at DESC LIMIT 100` on the naive schema "
                + "(a substring: \(likeWordCount) matches against the word's \(wordCount), so it stops sooner); "
                + "ours: `.plain(\"\(Self.word)\")`, latest 100",
            target: "≤ 5 ms"))

        // A phrase, newest first: the same rows as the LIKE.
        let phraseQuery = MessageQuery(text: .fts5("\"\(Self.phrase)\""), limit: 100)
        let phraseCount = try await store.count(phraseQuery)
        let likePhraseCount = try Self.cQuery(naivePath, "SELECT id FROM messages WHERE text LIKE ?", "%\(Self.phrase)%").rows
        guard phraseCount > 0, phraseCount == likePhraseCount else {
            throw BenchError.failed("\"\(Self.phrase)\": the store counts \(phraseCount), LIKE \(likePhraseCount)")
        }
        let phraseMs = try await Self.median(store, phraseQuery, expected: min(100, phraseCount)) { message in
            message.text.contains(Self.phrase + " ")
        }
        let likePhrase = try Self.cQuery(naivePath, Self.likeLatestSQL, "%\(Self.phrase)%", repeats: 7)
        figures.append(Figure(
            name: "search.phrase_ms", value: phraseMs, baseline: likePhrase.ms, unit: "ms",
            baselineDescription: "C: `text LIKE '%\(Self.phrase)%' ORDER BY created_at DESC LIMIT 100` (the same "
                + "\(phraseCount) rows); ours: `.fts5(\"\\\"\(Self.phrase)\\\"\")`, latest 100",
            target: "≤ 10 ms"))

        // A metadata value, newest first.
        let metadataQuery = MessageQuery(metadata: [.equals("user", Self.user)], limit: 100)
        let metadataCount = try await store.count(metadataQuery)
        let jsonCount = try Self.cQuery(
            naivePath, "SELECT id FROM messages WHERE json_extract(metadata, '$.user') = ?", Self.user).rows
        guard metadataCount > 0, metadataCount == jsonCount else {
            throw BenchError.failed("user \(Self.user): the store counts \(metadataCount), json_extract \(jsonCount)")
        }
        let metadataMs = try await Self.median(store, metadataQuery, expected: min(100, metadataCount)) { message in
            message.metadata["user"]?.description == Self.user
        }
        let json = try Self.cQuery(
            naivePath,
            "SELECT id, created_at, level, label, text, metadata FROM messages "
                + "WHERE json_extract(metadata, '$.user') = ? ORDER BY created_at DESC LIMIT 100",
            Self.user, repeats: 5)
        figures.append(Figure(
            name: "query.metadata_ms", value: metadataMs, baseline: json.ms, unit: "ms",
            baselineDescription: "C: `json_extract(metadata, '$.user') = '\(Self.user)' ORDER BY created_at DESC "
                + "LIMIT 100` on the naive schema (\(metadataCount) rows); ours: `.equals(\"user\", \"\(Self.user)\")`",
            target: "≤ 50 ms"))

        // The plain path on this store: the index must not slow it.
        let latest = MessageQuery(levels: .warning ... .critical, labels: ["payments"], limit: 100)
        let latestMs = try await Self.median(store, latest, expected: 100) { _ in true }
        print(String(format: "search: query.latest100_ms on the searchable store: %.3f ms", latestMs))
        try await store.close()
        return figures
    }

    /// `SELECT` of the baseline's latest-100 `LIKE` search.
    private static let likeLatestSQL =
        "SELECT id, created_at, level, label, text, metadata FROM messages WHERE text LIKE ? "
        + "ORDER BY created_at DESC LIMIT 100"

    /// What a naive program asks its FTS5 index for the latest 100 (printed, not a figure).
    private static let naiveFTSLatestSQL =
        "SELECT m.id, m.created_at, m.level, m.label, m.text, m.metadata FROM messages_fts "
        + "JOIN messages m ON m.id = messages_fts.rowid WHERE messages_fts MATCH ? "
        + "ORDER BY messages_fts.rowid DESC LIMIT 100"

    /// The median of 21 runs of `query` (after one to warm the reader and the page cache, as
    /// the C side does), each checked: `expected` messages, every one passing `isMatch`.
    private static func median(
        _ store: LogStore, _ query: MessageQuery, expected: Int, isMatch: @escaping (LogStore.Message) -> Bool
    ) async throws -> Double {
        let first = try await store.messages(query)
        guard first.messages.count == expected, first.messages.allSatisfy(isMatch) else {
            throw BenchError.failed("\(query): \(first.messages.count) messages, expected \(expected) matching")
        }
        return try await Measure.medianMilliseconds(repeats: 21) {
            let page = try await store.messages(query)
            guard page.messages.count == expected else {
                throw BenchError.failed("\(query) returned \(page.messages.count), expected \(expected)")
            }
        }
    }

    /// `lsb_query_sql` on the naive database: the median milliseconds and one run's rows.
    private static func cQuery(
        _ path: String, _ sql: String, _ parameter: String, repeats: Int = 1
    ) throws -> (ms: Double, rows: Int) {
        var milliseconds = 0.0
        var rows: Int64 = 0
        var message = [CChar](repeating: 0, count: 512)
        let code = lsb_query_sql(path, sql, parameter, Int32(repeats), &milliseconds, &rows, &message, Int32(message.count))
        guard code == 0 else { throw BenchError.failed("C query \(sql): \(Self.string(message))") }
        return (milliseconds, Int(rows))
    }

    private static func cInteger(_ path: String, _ sql: String) throws -> Int64 {
        var value: Int64 = 0
        var message = [CChar](repeating: 0, count: 512)
        let code = lsb_query_integer(path, sql, &value, &message, Int32(message.count))
        guard code == 0 else { throw BenchError.failed("C query \(sql): \(Self.string(message))") }
        return value
    }

    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Sizes

    /// Prints the index's size beside the messages table's, ours and the naive one's (`dbstat`).
    private func printSizes(storePath: String, naivePath: String) throws {
        func megabytes(_ path: String, _ condition: String) throws -> Double {
            Double(try Self.cInteger(path, "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE \(condition)")) / 1e6
        }
        let fileSQL = "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"
        do {
            print(String(
                format: "search: sizes (MB): ours: index %.1f, messages table %.1f, database %.1f; "
                    + "naive: FTS5 index %.1f, messages table %.1f, database %.1f",
                try megabytes(storePath, "name LIKE 'message\\_search%' ESCAPE '\\'"), try megabytes(storePath, "name = 'messages'"),
                Double(try Self.cInteger(storePath, fileSQL)) / 1e6,
                try megabytes(naivePath, "name LIKE 'messages\\_fts%' ESCAPE '\\'"), try megabytes(naivePath, "name = 'messages'"),
                Double(try Self.cInteger(naivePath, fileSQL)) / 1e6))
        } catch {
            print("search: sizes unavailable (\(error))")
        }
    }

    // MARK: Backfill

    /// How long the writer takes to index an existing store filled with the index off (a store
    /// from before schema 5 gets the same empty index on upgrading), while one message a
    /// 50 ms is logged and flushed to show logging keeps going; beside FTS5's own `rebuild` of
    /// the naive index over the same rows.
    private func backfill(naivePath: String) async throws -> Figure {
        let url = directory.appendingPathComponent("backfill.logstore")
        let unindexedIngest = try await Self.ingest(rows: rows, at: url, searchIndex: false)
        print(String(
            format: "search: the same ingest with search off: %.0f msg/s (flush; %.2f s of CPU)",
            Double(rows) / unindexedIngest.committedSeconds, unindexedIngest.cpuSeconds))
        sync()
        var configuration = LogStore.Configuration()
        configuration.overflowPolicy = .waitForSpace
        let start = Measure.now()
        let store = try await LogStore(storeURL: url, options: [], configuration: configuration)
        let openMs = Measure.milliseconds(since: start)
        var longestFlushMs = 0.0
        var logged = 0
        while try await store.info().unindexedMessageCount > 0 {
            let flushStart = Measure.now()
            store.storeMessage(label: "bench", level: .info, message: "logged while indexing \(logged)")
            try await store.flush()
            longestFlushMs = max(longestFlushMs, Measure.milliseconds(since: flushStart))
            logged += 1
            try await Task.sleep(for: .milliseconds(50))
        }
        let seconds = Measure.seconds(since: start)
        let found = try await store.count(MessageQuery(text: .plain(Self.word)))
        try await BenchStore.closeAndDelete(store, at: url)
        guard found > 0 else { throw BenchError.failed("nothing found for \"\(Self.word)\" after indexing") }
        print(String(
            format: "search: indexing %d existing messages: %.2f s from opening (open %.1f ms); %d messages logged "
                + "meanwhile, longest storeMessage → flush() %.1f ms", Int32(rows), seconds, openMs, Int32(logged), longestFlushMs))
        let rebuild = try Self.cQuery(naivePath, "INSERT INTO messages_fts(messages_fts) VALUES (?)", "rebuild")
        return Figure(
            name: "search.backfill_s", value: seconds, baseline: rebuild.ms / 1000, unit: "s",
            baselineDescription: "C: FTS5 `rebuild` of the naive index over the same rows, one statement; ours: "
                + "opening a \(rows)-message store filled with search off until `unindexedMessageCount == 0`, "
                + "logging meanwhile (longest flush \(String(format: "%.0f", longestFlushMs)) ms)",
            target: "report")
    }
}
