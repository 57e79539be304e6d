import Foundation
import LogStore
import Testing

/// Full-text search over messages (`MessageQuery.text`): syntax, safety with typed text, the
/// messages not yet indexed, and the index kept in step with deletions.
@Suite("Full-text search")
struct FullTextSearchTests {
    static let texts = [
        "Connection reset by peer while reading the response",
        "Upstream api-07.internal timed out after 30 s",
        "Café au lait ordered by user 42",
        "disk full: could not write the journal",
        "Retrying the request (attempt 2 of 5)",
        "connection refused: nobody listens on port 8080",
        "User \"admin\" logged in from 10.0.0.1",
        "NEAR the end of the queue AND OR NOT",
        "日本語のログメッセージ",
        "emoji 🚀 launched",
    ]

    /// A store with `texts` logged in order and committed; the index is on or off.
    static func withTexts<T>(
        indexed: Bool = true, _ body: (LogStore) async throws -> T
    ) async throws -> T {
        var configuration = LogStore.Configuration()
        configuration.isSearchIndexEnabled = indexed
        return try await withTemporaryStore(configuration: configuration) { store, _ in
            for text in texts { store.storeMessage(label: "app", level: .info, message: text) }
            try await store.flush()
            return try await body(store)
        }
    }

    static func found(_ store: LogStore, _ search: TextSearch, order: MessageQuery.SortOrder = .oldestFirst) async throws -> [String] {
        try await store.messages(MessageQuery(text: search, order: order)).messages.map(\.text)
    }

    /// Waits (bounded) until the writer's index has caught up.
    static func waitUntilIndexed(_ store: LogStore) async throws {
        try await withinTimeLimit(seconds: 30) {
            while try await store.info().unindexedMessageCount > 0 { try await Task.sleep(for: .milliseconds(10)) }
        }
    }

    @Test(arguments: [true, false])
    func plainWordsAreFoundWithoutCaseOrAccents(indexed: Bool) async throws {
        try await Self.withTexts(indexed: indexed) { store in
            if indexed { try await Self.waitUntilIndexed(store) }
            #expect(try await Self.found(store, .plain("connection")) == [Self.texts[0], Self.texts[5]])
            #expect(try await Self.found(store, .plain("CONNECTION reset")) == [Self.texts[0]])
            #expect(try await Self.found(store, .plain("cafe")) == [Self.texts[2]])
            #expect(try await Self.found(store, .plain("api-07.internal")) == [Self.texts[1]])
            #expect(try await Self.found(store, .plain("🚀 launched")) == [Self.texts[9]])
            #expect(try await Self.found(store, .plain("nowhere")) == [])
        }
    }

    @Test func fts5SyntaxHasPrefixesPhrasesAndOperators() async throws {
        try await Self.withTexts { store in
            try await Self.waitUntilIndexed(store)
            #expect(try await Self.found(store, .fts5("conn*")) == [Self.texts[0], Self.texts[5]])
            #expect(try await Self.found(store, .fts5("\"timed out\"")) == [Self.texts[1]])
            #expect(try await Self.found(store, .fts5("\"out timed\"")) == [])
            #expect(try await Self.found(store, .fts5("refused OR reset")) == [Self.texts[0], Self.texts[5]])
            #expect(try await Self.found(store, .fts5("connection NOT refused")) == [Self.texts[0]])
            #expect(try await Self.found(store, .fts5("connection AND port")) == [Self.texts[5]])
            #expect(try await Self.found(store, .fts5("NEAR(disk journal, 5)")) == [Self.texts[3]])
            #expect(try await Self.found(store, .fts5("(retrying OR refused) AND attempt")) == [Self.texts[4]])
        }
    }

    /// What a user may type into a search box. In plain syntax every one is text; in FTS5
    /// syntax it is a valid query or `invalidArgument`, never a database error.
    static let hostile = [
        "\"", "*", "(", ")", "NEAR(", "AND OR", "-", "- -", "AND", "OR", "NOT", "\"unterminated", "a\"b",
        "x*y", "'; DROP TABLE messages; --", "text : x", "metadata : admin", "{text}", "^start", "+", ":",
        "", "   ", "\u{0}", "café", "日本語", "🚀", "NEAR(a b, -1)", "((((((((((", String(repeating: "a ", count: 500),
    ]

    @Test func typedTextIsNeverAnErrorInPlainSyntax() async throws {
        try await Self.withTexts { store in
            for text in Self.hostile {
                _ = try await store.messages(MessageQuery(text: .plain(text)))
                _ = try await store.count(MessageQuery(text: .plain(text)))
            }
            // Operators and quotes are text: the message holding them is found by them.
            #expect(try await Self.found(store, .plain("NEAR the end AND OR NOT")) == [Self.texts[7]])
            #expect(try await Self.found(store, .plain("\"admin\"")) == [Self.texts[6]])
            #expect(try await Self.found(store, .plain("(attempt")) == [Self.texts[4]])
            // Punctuation alone has no words: it matches nothing; empty text is no filter.
            #expect(try await Self.found(store, .plain("-")) == [])
            #expect(try await Self.found(store, .plain("")).count == Self.texts.count)
            #expect(try await Self.found(store, .plain("  ")).count == Self.texts.count)
        }
    }

    @Test func typedTextInFTS5SyntaxIsAQueryOrAnInvalidArgument() async throws {
        try await Self.withTexts { store in
            for text in Self.hostile {
                do {
                    _ = try await store.messages(MessageQuery(text: .fts5(text)))
                    _ = try await store.count(MessageQuery(text: .fts5(text)))
                } catch let error as LogStoreError {
                    #expect(error.kind == .invalidArgument, "\(text): \(error)")
                }
            }
            await #expect(throws: LogStoreError.invalidArgument("")) {
                try await store.messages(MessageQuery(text: .fts5("connection AND")))
            }
            // The table is still there.
            #expect(try await store.count(MessageQuery()) == Self.texts.count)
        }
    }

    @Test func aSearchRightAfterFlushFindsTheNewestMessage() async throws {
        try await withTemporaryStore { store, _ in
            for round in 0..<30 {
                store.storeMessage(label: "app", level: .info, message: "round \(round) marker\(round)")
                try await store.flush()
                let found = try await store.messages(MessageQuery(text: .plain("marker\(round)")))
                #expect(found.messages.map(\.text) == ["round \(round) marker\(round)"])
            }
        }
    }

    @Test func theWriterIndexesWhatIsLoggedAndSearchesAgreeBeforeAndAfter() async throws {
        try await withTemporaryStore { store, _ in
            for i in 0..<3000 { store.storeMessage(label: "app", level: .info, message: "item \(i) \(i % 7 == 0 ? "seventh" : "other")") }
            try await store.flush()
            let query = MessageQuery(text: .plain("seventh"), limit: 1000)
            let before = try await store.messages(query).messages.map(\.id)
            try await Self.waitUntilIndexed(store)
            let after = try await store.messages(query).messages.map(\.id)
            #expect(before.count == 429)
            #expect(before == after)
            #expect(try await store.count(query) == 429)
        }
    }

    @Test func highlightsMarkTheMatchedWords() async throws {
        try await Self.withTexts { store in
            var query = MessageQuery(text: .fts5("connection OR port"))
            #expect(try await store.messages(query).matches.isEmpty)
            query.highlightsMatches = true
            let page = try await store.messages(query)
            #expect(page.messages.count == 2)
            for message in page.messages {
                let marked = page.matches[message.id]?.map { String(message.text[$0]) } ?? []
                #expect(marked.allSatisfy { ["connection", "port"].contains($0.lowercased()) })
                #expect(!marked.isEmpty)
            }
        }
    }

    @Test func pagesOfASearchHaveNoGapsOrRepeatsInEveryOrder() async throws {
        try await withTemporaryStore { store, _ in
            for i in 0..<250 { store.storeMessage(label: "app", level: .info, message: "entry \(i) \(i % 3 == 0 ? "needle" : "hay")") }
            try await store.flush()
            let expected = (0..<250).filter { $0 % 3 == 0 }.map { "entry \($0) needle" }
            for order in [MessageQuery.SortOrder.newestFirst, .oldestFirst, .relevance] {
                // Ranked pages are positions in the ranking: stable while it is, so no message
                // arrives or is indexed between them.
                if order == .relevance {
                    try await store.flush()
                    try await Self.waitUntilIndexed(store)
                }
                var query = MessageQuery(text: .plain("needle"), order: order, limit: 7)
                var seen: [String] = []
                var pages = 0
                repeat {
                    let page = try await store.messages(query)
                    seen += page.messages.map(\.text)
                    query.cursor = page.nextCursor
                    pages += 1
                    // New messages arriving meanwhile do not disturb id-ordered pages.
                    if order != .relevance { store.storeMessage(label: "app", level: .info, message: "late needle \(pages)") }
                } while query.cursor != nil && pages < 100
                let logged = seen.filter { $0.hasPrefix("entry") }
                #expect(Set(logged) == Set(expected), "\(order)")
                #expect(logged.count == expected.count, "\(order)")
                if order == .oldestFirst { #expect(logged == expected) }
                if order == .newestFirst { #expect(logged == expected.reversed()) }
            }
        }
    }

    /// A tail and a summary read inside a snapshot of their own: a search joins it.
    @Test func tailsAndSummariesTakeSearchAndMetadataFilters() async throws {
        try await withTemporaryStore { store, _ in
            store.storeMessage(label: "app", level: .info, message: "hello needle", metadata: ["user": "42"])
            store.storeMessage(label: "app", level: .info, message: "hello hay")
            try await store.flush()
            let summary = try await store.summary(MessageQuery(text: .plain("needle")), buckets: 4)
            #expect(summary.total == 1)
            #expect(try await store.summary(MessageQuery(metadata: [.equals("user", "42")])).total == 1)
            for query in [MessageQuery(text: .plain("needle")), MessageQuery(metadata: [.equals("user", "42")])] {
                let tail = try await store.tail(query, from: .last(5))
                let first = try await withinTimeLimit(seconds: 10) { () -> String? in
                    for try await message in tail { return message.text }
                    return nil
                }
                #expect(first == "hello needle")
            }
        }
    }

    /// A stray `)` would close the `text : (…)` the query is wrapped in and reach the metadata.
    @Test func unpairedParenthesesInFTS5SyntaxAreRefused() async throws {
        try await withTemporaryStore { store, _ in
            store.storeMessage(label: "app", level: .info, message: "nothing here", metadata: ["secret": "token"])
            store.storeMessage(label: "app", level: .info, message: "alpha")
            try await store.flush()
            for text in ["alpha) OR (token", "alpha)", "(alpha", "a) (b"] {
                await #expect(throws: LogStoreError.invalidArgument(""), "\(text)") {
                    try await store.messages(MessageQuery(text: .fts5(text)))
                }
            }
            #expect(try await Self.found(store, .fts5("(alpha OR token)")) == ["alpha"])
            #expect(try await Self.found(store, .fts5("\"(\" OR alpha")) == ["alpha"])
            #expect(try await Self.found(store, .plain("alpha) OR (token")) == [])
        }
    }

    @Test func aRankCursorContinuesOnlyARankedSearch() async throws {
        try await Self.withTexts { store in
            let cursor = try #require(MessageQuery.Cursor("r3"))
            await #expect(throws: LogStoreError.invalidArgument("")) {
                try await store.messages(MessageQuery(cursor: cursor))
            }
            await #expect(throws: LogStoreError.invalidArgument("")) {
                try await store.messages(MessageQuery(text: .plain("connection"), order: .newestFirst, cursor: cursor))
            }
            #expect(try await store.messages(MessageQuery(text: .plain("connection"), order: .relevance, cursor: cursor)).messages.isEmpty)
        }
    }

    /// In scripts with combining marks a word can end inside a character: the range covers it.
    @Test func highlightsCoverWholeCharacters() async throws {
        try await withTemporaryStore { store, _ in
            let text = "नमस्ते दुनिया and café"
            store.storeMessage(label: "app", level: .info, message: text)
            try await store.flush()
            for word in ["नमस्ते", "café"] {
                var query = MessageQuery(text: .plain(word))
                query.highlightsMatches = true
                let page = try await store.messages(query)
                let message = try #require(page.messages.first)
                let marked = page.matches[message.id]?.map { String(message.text[$0]) }
                #expect(marked == [word], "\(word)")
            }
        }
    }
}
