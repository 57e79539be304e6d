import Dispatch
import Foundation
import Synchronization
import Testing

// `@testable` only for `writeErrorsAreReportedRetriedAndRecovered`, which lowers
// `max_page_count` on the writer's own connection (`core.write`) to get a real SQLITE_FULL:
// no public API reaches the writer connection, and a full disk cannot be faked otherwise.
@testable import LogStore

@Suite("Ingestion")
struct IngestionTests {
    /// A configuration whose writer never commits on its own within a test: only `flush()`,
    /// a full batch or `close()` make it write.
    static func idleWriter() -> LogStore.Configuration {
        var configuration = LogStore.Configuration()
        configuration.saveInterval = .seconds(600)
        configuration.isGroupCommitEnabled = false
        return configuration
    }

    // MARK: Flush and synchronous

    @Test func flushMakesEverythingLoggedBeforeItVisibleInOrder() async throws {
        try await withTemporaryStore(configuration: Self.idleWriter()) { store, _ in
            for round in 0..<3 {
                for i in 0..<200 { store.storeMessage(label: "flush", level: .info, message: "r\(round) m\(i)") }
                try await store.flush()
                let texts = try await allMessages(store).map(\.text)
                let expected = (0...round).flatMap { r in (0..<200).map { "r\(r) m\($0)" } }
                #expect(texts == expected)
                #expect(try await store.info().pendingEventCount == 0)
            }
            // Nothing pending: flush returns at once and changes nothing.
            try await store.flush()
            #expect(try await store.info().messageCount == 600)
        }
    }

    @Test func synchronousMessagesAreVisibleWhenTheCallReturns() async throws {
        try await withTemporaryStore(options: [.create, .synchronous], configuration: Self.idleWriter()) { store, _ in
            for i in 0..<20 {
                store.storeMessage(label: "sync", level: .notice, message: "s\(i)")
                // No flush: the call returned only after the commit.
                let page = try await store.messages(MessageQuery(limit: 1))
                #expect(page.messages.first?.text == "s\(i)")
            }
            #expect(try await store.info().messageCount == 20)
        }
    }

    // MARK: Concurrency

    @Test func concurrentLoggingKeepsEveryMessageAndEachTasksOrder() async throws {
        let tasks = 8
        let perTask = 5_000
        // More than the default buffer holds: the producers must wait for the writer, not drop.
        var configuration = LogStore.Configuration()
        configuration.overflowPolicy = .waitForSpace
        #expect(tasks * perTask > configuration.maxPendingEvents)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            await withTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        for sequence in 0..<perTask {
                            store.storeMessage(
                                label: "task-\(task)", level: .info, message: "\(sequence)",
                                metadata: ["seq": "\(sequence)"])
                        }
                    }
                }
            }
            try await store.flush()

            let info = try await store.info()
            #expect(info.messageCount == tasks * perTask)
            #expect(info.droppedEventCount == 0)

            let rows = try await store.read { db in
                try db.rows("SELECT label, CAST(json_extract(metadata, '$.seq') AS INTEGER) FROM message_rows ORDER BY id")
            }
            var sequences: [String: [Int64]] = [:]
            for row in rows {
                sequences[row[0].text ?? "?", default: []].append(row[1].integer ?? -1)
            }
            #expect(sequences.keys.sorted() == (0..<tasks).map { "task-\($0)" }.sorted())
            for (label, values) in sequences {
                // Strictly increasing by row id, and none missing: each task's order was kept.
                #expect(values == (0..<Int64(perTask)).map { $0 }, "\(label)")
            }
        }
    }

    // MARK: What is stored

    @Test func messagesBelowTheMinimumLevelAreNeverBuiltNorStored() async throws {
        var configuration = LogStore.Configuration()
        configuration.minimumLevel = .warning
        try await withTemporaryStore(configuration: configuration) { store, _ in
            var builtTexts = 0
            var builtMetadata = 0
            func text(_ value: String) -> String {
                builtTexts += 1
                return value
            }
            func metadata() -> LogStore.Metadata {
                builtMetadata += 1
                return ["k": "v"]
            }
            for level in LogStore.Level.allCases {
                store.storeMessage(label: "min", level: level, message: text(level.name), metadata: metadata())
            }
            try await store.flush()

            #expect(builtTexts == 3, "only warning, error and critical are built")
            #expect(builtMetadata == 3)
            let messages = try await allMessages(store)
            #expect(messages.map(\.level) == [.warning, .error, .critical])
            #expect(messages.map(\.text) == ["warning", "error", "critical"])
            #expect(try await store.info().droppedEventCount == 0)
        }
    }

    @Test func metadataOfEveryKindRoundTripsAndIsQueryableAsJSON() async throws {
        try await withTemporaryStore { store, _ in
            let metadata: LogStore.Metadata = [
                "user": "42",
                "port": .stringConvertible(8080),
                "request": ["id": "r-1", "client": ["ip": "10.0.0.7", "agent": "curl/8"]],
                "roles": ["admin", "ops", ["scope": "all"]],
                "quote": "say \"hi\"\n\tand \\ more ☃",
            ]
            store.storeMessage(label: "meta", level: .info, message: "with metadata", metadata: metadata)
            store.storeMessage(label: "meta", level: .info, message: "other user", metadata: ["user": "7"])
            store.storeMessage(label: "meta", level: .info, message: "no metadata")
            try await store.flush()

            let messages = try await allMessages(store)
            try #require(messages.count == 3)
            #expect(messages[0].metadata == metadata)
            // A string-convertible value is rendered when stored and reads back as a string.
            guard case .string("8080") = messages[0].metadata["port"] else {
                Issue.record("port reads back as \(String(describing: messages[0].metadata["port"]))")
                return
            }
            #expect(messages[1].metadata == ["user": "7"])
            #expect(messages[2].metadata.isEmpty)

            let row = try await store.read { db in
                try db.rows(
                    """
                    SELECT json_extract(metadata, '$.user'), json_extract(metadata, '$.port'),
                           json_extract(metadata, '$.request.client.ip'), json_extract(metadata, '$.roles[1]'),
                           json_extract(metadata, '$.roles[2].scope'), json_type(metadata, '$.roles'),
                           json_extract(metadata, '$.quote')
                    FROM message_rows WHERE text = 'with metadata'
                    """)
            }.first
            let values = try #require(row).values
            #expect(values == [.text("42"), .text("8080"), .text("10.0.0.7"), .text("ops"), .text("all"),
                               .text("array"), .text("say \"hi\"\n\tand \\ more ☃")])

            let found = try await store.read { db in
                try db.rows("SELECT text FROM message_rows WHERE json_extract(metadata, '$.user') = ?", ["7"])
            }
            #expect(found.map { $0["text"]?.text } == ["other user"])
        }
    }

    @Test func sourceLocationIsStoredWithTheFileNameOnly() async throws {
        try await withTemporaryStore { store, _ in
            store.storeMessage(
                label: "loc", level: .info, message: "explicit", file: "Sources/App/Routes/Handler.swift",
                function: "handle(_:)", line: 123)
            store.storeMessage(label: "loc", level: .info, message: "defaults")
            store.storeMessage(label: "loc", level: .info, message: "bare", file: "main.swift", function: "f", line: 1)
            try await store.flush()

            let messages = try await allMessages(store)
            try #require(messages.count == 3)
            #expect(messages[0].file == "Handler.swift")
            #expect(messages[0].function == "handle(_:)")
            #expect(messages[0].line == 123)
            #expect(messages[1].file == "IngestionTests.swift")
            #expect(messages[1].function == "sourceLocationIsStoredWithTheFileNameOnly()")
            #expect(messages[2].file == "main.swift")
        }
    }

    @Test func callingThreadIsRecorded() async throws {
        try await withTemporaryStore { store, _ in
            // Log from a thread of our own, whose kernel id and name we know.
            let seen = Recorder<(id: Int32, name: String)?>(nil)
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                // The kernel's thread name (what `top -H` shows); Foundation's `Thread.name` does
                // not always reach it, so set it where the kernel keeps it.
                try? Data("ingest-worker".utf8).write(to: URL(fileURLWithPath: "/proc/thread-self/comm"))
                let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
                let id = link.split(separator: "/").last.flatMap { Int32($0) } ?? 0
                store.storeMessage(label: "thread", level: .info, message: "from a named thread")
                seen.update { $0 = (id, name.trimmingCharacters(in: .newlines)) }
                done.signal()
            }
            thread.start()
            await Self.wait(for: done)
            store.storeMessage(label: "thread", level: .info, message: "from the test")
            try await store.flush()

            let expected = try #require(seen.current)
            let messages = try await allMessages(store)
            try #require(messages.count == 2)
            #expect(expected.id != 0)
            try #require(expected.name == "ingest-worker", "the test could not name its thread")
            #expect(messages[0].threadID == expected.id)
            #expect(messages[0].threadName == expected.name)
            #expect(messages[1].threadID != 0)
            #expect(messages[1].threadID != expected.id)
        }
    }

    // MARK: The bounded buffer

    @Test func overflowDropsTheLowestLevelsFirstAndReportsTheCount() async throws {
        let capacity = 100
        // The writer is held inside `willHandleEvent` while the test floods, so the buffer fills
        // deterministically instead of racing the writer.
        let held = HeldWriter()
        var configuration = Self.idleWriter()
        configuration.maxPendingEvents = capacity
        held.hold(&configuration)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            store.storeMessage(label: "flood", level: .info, message: "held")
            let firstFlush = Task { try await store.flush() }
            try await held.waitUntilHeld()

            let total = 20_000
            var logged: [LogStore.Level: Int] = [:]
            for i in 0..<total {
                // 40 errors and debugs in all: fewer than the buffer holds, so traces are always
                // there to evict.
                let level: LogStore.Level = i.isMultiple(of: 2_000) ? .error : i.isMultiple(of: 500) ? .debug : .trace
                logged[level, default: 0] += 1
                store.storeMessage(label: "flood", level: level, message: "\(level) \(i)")
            }
            // The held event counts against the bound too: `capacity - 1` others fit beside it.
            let dropped = total - capacity + 1
            #expect(try await store.info().droppedEventCount == dropped)
            held.release()
            try await firstFlush.value
            try await store.flush()

            let info = try await store.info()
            #expect(info.droppedEventCount == dropped)

            let stored = try await allMessages(store, MessageQuery(labels: ["flood"]))
            let storedByLevel = Dictionary(grouping: stored, by: \.level).mapValues(\.count)
            #expect(storedByLevel[.error] == logged[.error], "every error survives")
            #expect(storedByLevel[.debug] == logged[.debug], "debug outranks trace")
            #expect((logged[.trace] ?? 0) - (storedByLevel[.trace] ?? 0) == dropped, "only traces dropped")
            #expect(stored.count == capacity)
            // The survivors are the newest: each dropped event was the oldest of its level.
            let survivingTraces = stored.filter { $0.level == .trace }.map(\.text)
            #expect(survivingTraces.last == "trace \(total - 1)")

            let notices = try await allMessages(store, MessageQuery(labels: ["logstore"]))
            #expect(!notices.isEmpty)
            #expect(notices.allSatisfy { $0.level == .warning })
            let reported = notices.compactMap { notice -> Int? in
                guard case .string(let count)? = notice.metadata["dropped"] else { return nil }
                return Int(count)
            }
            #expect(reported.reduce(0, +) == dropped)
            #expect(notices.first?.text.contains("\(dropped)") == true)
        }
    }

    @Test func waitForSpaceDropsNothing() async throws {
        var configuration = LogStore.Configuration()
        configuration.maxPendingEvents = 16
        configuration.overflowPolicy = .waitForSpace
        try await withTemporaryStore(configuration: configuration) { store, _ in
            let total = 3_000
            for i in 0..<total { store.storeMessage(label: "wait", level: .trace, message: "\(i)") }
            try await store.flush()

            let info = try await store.info()
            #expect(info.droppedEventCount == 0)
            #expect(info.messageCount == total)
            let texts = try await allMessages(store).map(\.text)
            #expect(texts == (0..<total).map(String.init))
        }
    }

    // MARK: willHandleEvent and the events stream

    @Test func willHandleEventRewritesAndDropsBeforeStoringAndPublishing() async throws {
        var configuration = LogStore.Configuration()
        configuration.willHandleEvent = { event in
            guard case .messageStored(var message) = event else { return event }
            if message.label == "noise" { return nil }
            message.message = message.message.replacingOccurrences(of: "hunter2", with: "<private>")
            if message.metadata?["password"] != nil { message.metadata?["password"] = "<private>" }
            return .messageStored(message)
        }
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, configuration: configuration)
            let events = store.subscribeEvents()
            store.storeMessage(
                label: "auth", level: .info, message: "login with hunter2", metadata: ["password": "hunter2"])
            store.storeMessage(label: "noise", level: .error, message: "dropped")
            store.storeMessage(label: "auth", level: .info, message: "plain")
            try await store.flush()

            let messages = try await allMessages(store)
            #expect(messages.map(\.text) == ["login with <private>", "plain"])
            #expect(messages.first?.metadata == ["password": "<private>"])
            #expect(try await store.info().messageCount == 2)
            let raw = try await store.read { db in
                try db.scalar("SELECT count(*) FROM messages WHERE text LIKE '%hunter2%' OR metadata LIKE '%hunter2%'")
            }
            #expect(raw == .integer(0))

            try await store.close()
            var published: [String] = []
            for event in try await collect(events) {
                if case .messageStored(let message) = event { published.append(message.message) }
            }
            #expect(published == ["login with <private>", "plain"])
        }
    }

    /// Under load the next batch is prepared (and the hook called) while the writer commits the
    /// current one: the hook still sees every event once, in logging order, and the stored order
    /// matches.
    @Test func underLoadTheHookSeesEveryEventOnceInOrder() async throws {
        let seen = Mutex<[String]>([])
        var configuration = LogStore.Configuration()
        configuration.overflowPolicy = .waitForSpace
        configuration.willHandleEvent = { event in
            if case .messageStored(let message) = event { seen.withLock { $0.append(message.message) } }
            return event
        }
        try await withTemporaryStore(configuration: configuration) { store, _ in
            let total = 60_000
            try await onOwnThread { for i in 0..<total { store.storeMessage(label: "load", level: .info, message: "\(i)") } }
            try await store.flush()
            let expected = (0..<total).map(String.init)
            #expect(seen.withLock { $0 } == expected)
            #expect(try await allMessages(store).map(\.text) == expected)
        }
    }

    /// A write through the store (here `removeAll`) runs after every event logged before it,
    /// including those the writer was preparing in the background.
    @Test func aWriteRunsAfterEverythingLoggedBeforeIt() async throws {
        var configuration = LogStore.Configuration()
        configuration.overflowPolicy = .waitForSpace
        // A slow hook keeps each batch in preparation long enough for more events to arrive.
        configuration.willHandleEvent = { event in
            if case .messageStored(let message) = event, message.message.hasSuffix("000") { usleep(2_000) }
            return event
        }
        try await withTemporaryStore(configuration: configuration) { store, _ in
            for round in 0..<3 {
                try await onOwnThread {
                    for i in 0..<30_000 { store.storeMessage(label: "load", level: .info, message: "\(round).\(i)") }
                }
                try await store.removeAll()
                #expect(try await store.count(MessageQuery()) == 0, "round \(round)")
            }
            store.storeMessage(label: "load", level: .info, message: "after")
            try await store.flush()
            #expect(try await allMessages(store).map(\.text) == ["after"])
        }
    }

    @Test func twoSubscribersEachReceiveEveryCommittedMessageInOrder() async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url)
            let first = store.subscribeEvents()
            let second = store.subscribeEvents()
            for i in 0..<500 { store.storeMessage(label: "live", level: .info, message: "e\(i)") }
            try await store.flush()
            // Closing ends the streams, so collecting them cannot hang.
            try await store.close()

            let expected = (0..<500).map { "e\($0)" }
            for stream in [first, second] {
                var texts: [String] = []
                for event in try await collect(stream) {
                    if case .messageStored(let message) = event { texts.append(message.message) }
                }
                #expect(texts == expected)
            }
        }
    }

    @Test func eventsAfterCloseEndAtOnce() async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url)
            try await store.close()
            #expect(try await collect(store.subscribeEvents()).isEmpty)
        }
    }

    // MARK: Write errors

    @Test func writeErrorsAreReportedRetriedAndRecovered() async throws {
        let reported = Recorder<[LogStoreError]>([])
        var configuration = Self.idleWriter()
        configuration.onWriteError = { error in reported.update { $0.append(error) } }
        try await withTemporaryStore(configuration: configuration) { store, _ in
            store.storeMessage(label: "disk", level: .info, message: "before")
            try await store.flush()

            // Cap the database at its current size: the next pages it needs make SQLITE_FULL,
            // as a full disk would. (`max_page_count` never goes below the current page count.)
            try await store.core.write { writer in try writer.connection.execute("PRAGMA max_page_count = 1") }
            let text = String(repeating: "x", count: 2_000)
            for i in 0..<200 { store.storeMessage(label: "disk", level: .info, message: "\(i) \(text)") }

            let error = await #expect(throws: LogStoreError.self) { try await store.flush() }
            guard let error, error.kind == .writeFailed, let cause = error.writeFailedCause else {
                Issue.record("expected writeFailed, got \(String(describing: error))")
                return
            }
            #expect(cause.databaseError?.isFull == true)
            let failing = try await store.info()
            #expect(failing.writeErrorCount > 0)
            #expect(failing.lastWriteError != nil)
            #expect(failing.messageCount == 1)
            #expect(!reported.current.isEmpty)
            #expect(reported.current.allSatisfy { $0.kind == .writeFailed })

            // Logging goes on while the disk is full.
            store.storeMessage(label: "disk", level: .info, message: "during")

            // Space comes back: the kept events commit, nothing is lost.
            try await store.core.write { writer in
                try writer.connection.execute("PRAGMA max_page_count = 1073741823")
            }
            try await store.flush()
            let texts = try await allMessages(store).map(\.text)
            #expect(texts == ["before"] + (0..<200).map { "\($0) \(text)" } + ["during"])
            let recovered = try await store.info()
            #expect(recovered.messageCount == 202)
            #expect(recovered.pendingEventCount == 0)
        }
    }

    /// Waits on a semaphore without blocking a cooperative thread.
    static func wait(for semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }
}
