import Foundation
@testable import LogStore
import Testing

/// Stores made by earlier versions keep opening (see Fixtures/README.md). Each test works on a
/// copy: opening a store writes to it.
@Suite struct FixtureTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    private func withCopy<T>(of name: String, _ body: (URL) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent(name)
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(name), to: copy)
            return try await body(copy)
        }
    }

    @Test func storeV1OpensAndReadsEverything() async throws {
        try await withCopy(of: "store-v1.logstore") { url in
            let store = try await LogStore(storeURL: url, options: [])
            let info = try await store.info()
            #expect(info.messageCount == 500)
            #expect(info.storeVersion == LogStore.Version(1, 0, 0))
            #expect(info.schemaVersion == LogStore.Version(Migrations.latestVersion, 0, 0))  // migrated forward at open
            #expect(info.sessionCount == 3)  // the fixture's two, and this open's
            #expect(try await store.count(MessageQuery(levels: .warning ... .critical)) == 31)
            #expect(try await store.count(MessageQuery(levels: .critical ... .critical)) == 2)
            #expect(try await store.count(MessageQuery(labels: ["http"])) == 112)

            let oldest = try await store.messages(MessageQuery(order: .oldestFirst, limit: 1))
            #expect(oldest.messages.first?.text
                == "INSERT INTO order_items (order_id, sku, quantity, price) VALUES ($1, $2, $3, $4) (2.3 ms)")
            let sessions = try await store.sessions()
            #expect(sessions.prefix(2).map(\.id.uuidString) == [
                "5572E418-16D5-4B34-A4AA-7200D3E334AF", "49C705C8-824A-4815-98A4-6F71B16922D8",
            ])
            let firstSession = try #require(sessions.first?.id)
            #expect(try await store.count(MessageQuery(sessions: [firstSession])) == 250)

            // It takes new messages beside the old ones.
            store.storeMessage(label: "fixture", level: .info, message: "written by this version")
            try await store.flush()
            #expect(try await store.count(MessageQuery()) == 501)
            try await store.close()
        }
    }

    @Test func storeV1OpensReadOnly() async throws {
        try await withCopy(of: "store-v1.logstore") { url in
            let store = try await LogStore(storeURL: url, options: [.readonly])
            #expect(try await store.info().messageCount == 500)
            #expect(try await store.sessions().count == 2)
            // Schema 1 has no tasks or bodies; read-only, it cannot be migrated, and reads as empty.
            #expect(try await store.info().taskCount == 0)
            #expect(try await store.tasks(TaskQuery()).tasks.isEmpty)
            #expect(try await store.blobData(forKey: String(repeating: "0", count: 40)) == nil)
            await #expect(throws: LogStoreError.self) { try await store.blobData(forKey: "../x") }
            try await store.close()
        }
    }

    // MARK: Schema 2: network tasks, heads and bodies

    static let v2TaskID = UUID(uuidString: "44226B34-E7CF-4DC1-ACBB-7B3E233D0EEC")!

    /// The last store of schema 3 (library 0.2.0) migrates to 4 in place: every row stays, and
    /// its technical messages lose their placeholder source location.
    @Test func storeV3MigratesInPlaceAndKeepsEverything() async throws {
        try await withCopy(of: "store-v3.logstore") { url in
            let store = try await LogStore(storeURL: url, options: [])
            let info = try await store.info()
            #expect(info.schemaVersion == LogStore.Version(Migrations.latestVersion, 0, 0))
            #expect(info.messageCount == 400)
            #expect(info.taskCount == 40)
            #expect(info.blobCount == 39)
            #expect(try await store.count(MessageQuery(levels: .error ... .critical)) == 8)
            let technical = try await allMessages(store, MessageQuery(includesTaskMessages: true)).filter { $0.file == nil }
            #expect(technical.count == 38)
            #expect(technical.allSatisfy { $0.function == nil && $0.line == nil && $0.threadID == nil })
            let taskID = try #require(UUID(uuidString: "257C4354-3006-4741-B274-E98093BC628A"))
            let task = try #require(try await store.task(id: taskID))
            #expect(task.summary.host == "catalog.shop.internal")
            #expect(task.summary.statusCode == 200)
            let check = try await store.read { db in try db.scalar("PRAGMA integrity_check") }
            #expect(check == .text("ok"))
            try await store.close()
        }
    }

    @Test func storeV2MigratesAndKeepsItsTasks() async throws {
        try await withCopy(of: "store-v2.logstore") { url in
            let store = try await LogStore(storeURL: url, options: [])
            let info = try await store.info()
            #expect(info.schemaVersion == LogStore.Version(Migrations.latestVersion, 0, 0))
            #expect(info.messageCount == 400)
            #expect(info.taskCount == 40)
            #expect(info.blobCount == 43)
            #expect(try await store.tasks(TaskQuery(states: [.failure])).tasks.count == 7)

            // Heads survived the rebuild of their table, still linked from their tasks.
            let task = try #require(try await store.task(id: Self.v2TaskID))
            #expect(task.summary.statusCode == 200)
            #expect(task.request?.method == "GET")
            #expect(task.request?.url?.host == "catalog.shop.internal")
            #expect(task.request?.headers["Authorization"] == "<private>")
            #expect(task.response != nil)
            let heads = try await store.read { db in try db.rows("SELECT count(*), sum(link_count) FROM task_heads") }
            #expect(heads.first?.values.map(\.integer) == [76, 76])
            let broken = try await store.read { db in try db.rows("PRAGMA foreign_key_check") }
            #expect(broken.isEmpty)

            // Every body reads back, the three files included.
            for blob in try await store.blobs(limit: 100) {
                #expect(try await store.blobData(forKey: blob.key)?.count == Int(blob.decompressedSize))
            }

            // New tasks link to heads beside the old ones.
            store.storeRequest(
                NetworkRequest(url: URL(string: "https://catalog.shop.internal/v1/items"), method: "GET"),
                response: NetworkResponse(statusCode: 200), error: nil, data: Data(#"{"items":[]}"#.utf8))
            try await store.flush()
            #expect(try await store.info().taskCount == 41)
            try await store.close()
        }
    }

    @Test func storeV2OpensReadOnly() async throws {
        try await withCopy(of: "store-v2.logstore") { url in
            let store = try await LogStore(storeURL: url, options: [.readonly])
            let info = try await store.info()
            #expect(info.schemaVersion == LogStore.Version(2, 0, 0))
            #expect(info.taskCount == 40)
            let task = try #require(try await store.task(id: Self.v2TaskID))
            #expect(task.request?.headers["Authorization"] == "<private>")
            try await store.close()
        }
    }

    // MARK: Schema 6: the last store before task directions

    static let v6TaskID = UUID(uuidString: "A66B1D2D-2C63-436F-AC6E-65CAF8248CC7")!

    /// What the schema 6 fixture holds, checked the same way read-only and after migrating.
    private func checkV6Contents(_ store: LogStore) async throws {
        let info = try await store.info()
        #expect(info.taskCount == 40)
        #expect(info.blobCount == 34)
        #expect(try await store.count(MessageQuery()) == 400)
        #expect(try await store.count(MessageQuery(includesTaskMessages: true)) == 438)
        #expect(try await store.count(MessageQuery(levels: .warning ... .critical)) == 34)
        #expect(try await store.count(MessageQuery(labels: ["http"])) == 79)
        #expect(try await store.tasks(TaskQuery(states: [.success], limit: 100)).tasks.count == 33)
        #expect(try await store.tasks(TaskQuery(states: [.failure], limit: 100)).tasks.count == 5)
        #expect(try await store.tasks(TaskQuery(states: [.pending], limit: 100)).tasks.count == 2)

        let task = try #require(try await store.task(id: Self.v6TaskID))
        #expect(task.summary.host == "reports.shop.internal")
        #expect(task.summary.statusCode == 200)
        #expect(task.request?.method == "GET")
        #expect(task.responseBodyKey == "e6b02dc234ea36d20f1a1cfb424569781f76a2e9")
        let body = try #require(try await store.blobData(forKey: "e6b02dc234ea36d20f1a1cfb424569781f76a2e9"))
        #expect(body.count == 1_835_770)
    }

    @Test func storeV6MigratesInPlaceAndKeepsEverything() async throws {
        try await withCopy(of: "store-v6.logstore") { url in
            let store = try await LogStore(storeURL: url, options: [])
            #expect(try await store.info().schemaVersion == LogStore.Version(Migrations.latestVersion, 0, 0))
            try await checkV6Contents(store)
            #expect(try await store.info().sessionCount == 3)  // the fixture's two, and this open's
            let check = try await store.read { db in try db.scalar("PRAGMA integrity_check") }
            #expect(check == .text("ok"))
            try await store.close()
        }
    }

    @Test func storeV6OpensReadOnly() async throws {
        try await withCopy(of: "store-v6.logstore") { url in
            let store = try await LogStore(storeURL: url, options: [.readonly])
            #expect(try await store.info().schemaVersion == LogStore.Version(6, 0, 0))
            try await checkV6Contents(store)
            #expect(try await store.sessions().count == 2)
            try await store.close()
        }
    }

    // MARK: Schema 7

    static let v7TaskID = UUID(uuidString: "561ED6F6-BD54-47FD-A4F9-36729939F248")!

    /// `store-v7.logstore`'s contents (Fixtures/README.md), the same read-write and read-only.
    private func checkV7Contents(_ store: LogStore) async throws {
        #expect(try await store.count(MessageQuery()) == 400)
        #expect(try await store.count(MessageQuery(includesTaskMessages: true)) == 438)
        #expect(try await store.count(MessageQuery(levels: .warning ... .critical)) == 35)
        #expect(try await store.count(MessageQuery(labels: ["http"])) == 78)
        #expect(try await store.tasks(TaskQuery(states: [.success], limit: 100)).tasks.count == 32)
        #expect(try await store.tasks(TaskQuery(states: [.failure], limit: 100)).tasks.count == 6)
        #expect(try await store.tasks(TaskQuery(states: [.pending], limit: 100)).tasks.count == 2)
        #expect(try await store.tasks(TaskQuery(limit: 100, directions: [.inbound])).tasks.isEmpty)
        let task = try #require(try await store.task(id: Self.v7TaskID))
        #expect(task.summary.host == "catalog.shop.internal")
        #expect(task.summary.statusCode == 200)
        #expect(try await store.info().blobCount == 38)
    }

    /// Schema 8 gives the database its store's identity (`store_identity`, from the manifest).
    @Test func storeV7MigratesInPlaceAndTakesItsIdentity() async throws {
        try await withCopy(of: "store-v7.logstore") { url in
            let store = try await LogStore(storeURL: url, options: [])
            #expect(try await store.info().schemaVersion == LogStore.Version(Migrations.latestVersion, 0, 0))
            try await checkV7Contents(store)
            let storeID = try await store.info().storeID
            let identity = try await store.read { db in try db.scalar("SELECT store_id FROM store_identity")?.text }
            #expect(identity == storeID.uuidString)
            #expect(try await store.read { db in try db.scalar("PRAGMA integrity_check") } == .text("ok"))
            try await store.close()
        }
    }

    @Test func storeV7OpensReadOnly() async throws {
        try await withCopy(of: "store-v7.logstore") { url in
            let store = try await LogStore(storeURL: url, options: [.readonly])
            #expect(try await store.info().schemaVersion == LogStore.Version(7, 0, 0))
            try await checkV7Contents(store)
            try await store.close()
        }
    }

    // MARK: Schema 8

    static let v8TaskID = UUID(uuidString: "ECBE2FA9-36AA-496B-A18C-771A512CACF3")!

    /// `store-v8.logstore`'s contents (Fixtures/README.md), the same read-write and read-only.
    private func checkV8Contents(_ store: LogStore) async throws {
        #expect(try await store.count(MessageQuery()) == 400)
        #expect(try await store.count(MessageQuery(includesTaskMessages: true)) == 438)
        #expect(try await store.count(MessageQuery(levels: .warning ... .critical)) == 26)
        #expect(try await store.count(MessageQuery(labels: ["http"])) == 70)
        #expect(try await store.tasks(TaskQuery(states: [.success], limit: 100)).tasks.count == 32)
        #expect(try await store.tasks(TaskQuery(states: [.failure], limit: 100)).tasks.count == 6)
        #expect(try await store.tasks(TaskQuery(states: [.pending], limit: 100)).tasks.count == 2)
        let task = try #require(try await store.task(id: Self.v8TaskID))
        #expect(task.summary.host == "catalog.shop.internal")
        #expect(task.summary.statusCode == 200)
        #expect(try await store.info().blobCount == 35)
    }

    /// Schema 9 adds the change history: the migrated store keeps everything, records history
    /// from then on, and keeps it across a reopen.
    @Test func storeV8MigratesInPlaceAndRecordsHistoryFromThenOn() async throws {
        try await withCopy(of: "store-v8.logstore") { url in
            var configuration = LogStore.Configuration()
            configuration.history = HistoryConfiguration(currentAuthor: "server")
            let store = try await LogStore(storeURL: url, options: [], configuration: configuration)
            #expect(try await store.info().schemaVersion == LogStore.Version(Migrations.latestVersion, 0, 0))
            try await checkV8Contents(store)
            store.storeMessage(label: "app", level: .info, message: "after the migration")
            try await store.flush()
            try await store.close()

            let reopened = try await LogStore(storeURL: url, options: [], configuration: configuration)
            let rows = try await reopened.read { db in
                try db.rows("SELECT entity, operation, row_count FROM history ORDER BY seq").map { row in
                    row.values.map { $0.integer ?? -1 }
                }
            }
            // The migrating open's session, the message, the reopen's session: nothing of the
            // fixture's own rows, which were written before history existed.
            #expect(rows.prefix(2) == [[2, 0, 1], [0, 0, 1]])
            #expect(rows.count == 3)
            #expect(try await reopened.read { db in try db.scalar("PRAGMA integrity_check") } == .text("ok"))
            try await reopened.close()
        }
    }

    @Test func storeV8OpensReadOnly() async throws {
        try await withCopy(of: "store-v8.logstore") { url in
            let store = try await LogStore(storeURL: url, options: [.readonly])
            #expect(try await store.info().schemaVersion == LogStore.Version(8, 0, 0))
            try await checkV8Contents(store)
            try await store.close()
        }
    }

    // MARK: Schema 9

    static let v9TaskID = UUID(uuidString: "9F1ED05D-40EC-48A9-99B8-8630DAA067EF")!

    /// `store-v9.logstore`'s contents (Fixtures/README.md), the same read-write and read-only.
    private func checkV9Contents(_ store: LogStore) async throws {
        #expect(try await store.count(MessageQuery()) == 400)
        #expect(try await store.count(MessageQuery(includesTaskMessages: true)) == 438)
        #expect(try await store.count(MessageQuery(levels: .warning ... .critical)) == 33)
        #expect(try await store.count(MessageQuery(labels: ["http"])) == 82)
        #expect(try await store.tasks(TaskQuery(states: [.success], limit: 100)).tasks.count == 31)
        #expect(try await store.tasks(TaskQuery(states: [.failure], limit: 100)).tasks.count == 7)
        #expect(try await store.tasks(TaskQuery(states: [.pending], limit: 100)).tasks.count == 2)
        let task = try #require(try await store.task(id: Self.v9TaskID))
        #expect(task.summary.host == "www.shop.example")
        #expect(task.summary.statusCode == 200)
        #expect(try await store.info().blobCount == 40)
        let status = try await store.historyStatus()
        // A writable open without a history configuration adds its unconfigured batch author.
        let demoAuthors = status.authors.filter { !$0.name.hasPrefix(HistoryConfiguration.unconfiguredAuthorPrefix) }
        #expect(demoAuthors.map(\.name) == ["api", "worker"])
        let byName = Dictionary(uniqueKeysWithValues: status.authors.map { ($0.name, $0) })
        #expect(byName["api"]?.cursor == 5 && byName["worker"]?.cursor == 0)
        #expect(byName["api"]?.kind == .required && byName["worker"]?.kind == .required)
        // Schema 9 recorded no request: nobody asks for the guard until an author opens again.
        #expect(status.authors.allSatisfy { !$0.asksForRetentionGuard })
        #expect(!status.retentionGuardIsOn)
    }

    /// A sweep of everything older than a day, a year after the fixture was made.
    private func sweepEverythingOld(_ url: URL) async throws -> LogStore.SweepReport {
        var configuration = LogStore.Configuration()
        configuration.maxAge = .seconds(86_400)
        let later = Date(timeIntervalSince1970: 1_796_195_717 + 365 * 86_400)
        configuration.timeSource = LogStore.TimeSource(now: { later }, sleep: { try await Task.sleep(for: $0) })
        return try await withStore(at: url, options: [], configuration: configuration) { try await $0.sweep() }
    }

    /// Schema 10 records each author's request for the retention guard: the migrated store
    /// keeps everything, its authors ask for nothing, so a sweep of old rows deletes them all,
    /// as schema 9's sweeps without the guard did.
    @Test func storeV9MigratesInPlaceWithoutAGuard() async throws {
        try await withCopy(of: "store-v9.logstore") { url in
            let store = try await LogStore(storeURL: url, options: [])
            #expect(try await store.info().schemaVersion == LogStore.Version(Migrations.latestVersion, 0, 0))
            try await checkV9Contents(store)
            try await store.close()
            #expect(try await sweepEverythingOld(url).removedMessages == 400)
        }
    }

    /// Once one of the fixture's authors reopens asking for the guard, a process without a
    /// history configuration sweeps around what the authors had not consumed: each had not
    /// seen the other's session, which starts at the first row, so nothing old goes.
    @Test func storeV9KeepsWhatItsAuthorsHaveNotSeenOnceOneAsks() async throws {
        try await withCopy(of: "store-v9.logstore") { url in
            var configuration = LogStore.Configuration()
            configuration.history = HistoryConfiguration(currentAuthor: "worker", retentionGuard: true)
            try await withStore(at: url, options: [], configuration: configuration) { _ in }
            let report = try await sweepEverythingOld(url)
            #expect(report.removedMessages == 0 && report.removedTasks == 0)
            try await withStore(at: url, options: [.readonly]) { store async throws in
                #expect(try await store.count(MessageQuery(includesTaskMessages: true)) == 438)
                #expect(try await store.historyStatus().retentionGuardAuthors.map(\.name) == ["worker"])
            }
        }
    }

    @Test func storeV9OpensReadOnly() async throws {
        try await withCopy(of: "store-v9.logstore") { url in
            let store = try await LogStore(storeURL: url, options: [.readonly])
            #expect(try await store.info().schemaVersion == LogStore.Version(9, 0, 0))
            try await checkV9Contents(store)
            try await store.close()
        }
    }

    // MARK: Schema 10

    /// `store-v10.logstore`'s contents (Fixtures/README.md) and its searches, the same before
    /// and after its index becomes the first partition.
    private func checkV10Contents(_ store: LogStore) async throws {
        #expect(try await store.count(MessageQuery()) == 400)
        #expect(try await store.count(MessageQuery(includesTaskMessages: true)) == 438)
        #expect(try await store.count(MessageQuery(levels: .warning ... .critical)) == 24)
        #expect(try await store.count(MessageQuery(labels: ["http"])) == 102)
        #expect(try await store.count(MessageQuery(text: .plain("timeout"))) == 3)
        #expect(try await store.count(MessageQuery(text: .plain("cache"))) == 20)
        #expect(try await store.tasks(TaskQuery(states: [.success], limit: 100)).tasks.count == 31)
        #expect(try await store.info().unindexedMessageCount == 0)
    }

    /// Schema 11 keeps the index schema 10 built as its first partition (nothing re-indexed):
    /// searches find the same; new messages go into a partition of their own; once every message
    /// of the old one is swept, it is dropped whole.
    @Test func storeV10KeepsItsIndexAsTheFirstPartition() async throws {
        try await withCopy(of: "store-v10.logstore") { url in
            try await withStore(at: url, options: []) { store in
                #expect(try await store.info().schemaVersion == LogStore.Version(Migrations.latestVersion, 0, 0))
                try await checkV10Contents(store)
                store.storeMessage(label: "app", level: .info, message: "after the migration, a timeout")
                try await store.flush()
                try await withinTimeLimit(seconds: 30) {
                    while try await store.info().unindexedMessageCount > 0 { try await Task.sleep(for: .milliseconds(10)) }
                }
                #expect(try await store.count(MessageQuery(text: .plain("timeout"))) == 4)
                let ranked = try await store.messages(MessageQuery(text: .plain("timeout"), order: .relevance))
                #expect(ranked.messages.count == 4)
            }
            let partitions = { () throws -> [String] in
                let connection = try Connection(path: StoreFiles.databaseURL(in: url).path, mode: .readOnly)
                defer { connection.close() }
                return try connection.strings("SELECT name FROM search_partitions ORDER BY first_id")
            }
            #expect(try partitions() == ["message_search", "message_search_2"])
            #expect(try await sweepEverythingOld(url).removedMessages == 401)
            #expect(try partitions().isEmpty)
        }
    }

    @Test func storeV10OpensReadOnly() async throws {
        try await withCopy(of: "store-v10.logstore") { url in
            try await withStore(at: url, options: [.readonly]) { store in
                #expect(try await store.info().schemaVersion == LogStore.Version(10, 0, 0))
                try await checkV10Contents(store)
            }
        }
    }

    // MARK: Schema 11

    /// `store-v11.logstore`'s contents (Fixtures/README.md).
    private func checkV11Contents(_ store: LogStore) async throws {
        #expect(try await store.count(MessageQuery()) == 400)
        #expect(try await store.count(MessageQuery(includesTaskMessages: true)) == 438)
        #expect(try await store.count(MessageQuery(levels: .warning ... .critical)) == 33)
        #expect(try await store.count(MessageQuery(labels: ["http"])) == 101)
        #expect(try await store.count(MessageQuery(text: .plain("timeout"))) == 2)
        #expect(try await store.count(MessageQuery(text: .plain("cache"))) == 24)
        #expect(try await store.tasks(TaskQuery(states: [.success], limit: 100)).tasks.count == 29)
        #expect(try await store.info().storeID == UUID(uuidString: "34125293-7219-48F6-BC39-3BF3A7A51172"))
    }

    /// Schema 12 adds the shippers' table: a store of schema 11 opens with none, keeps its two
    /// history authors.
    @Test func storeV11GainsTheShippersTable() async throws {
        try await withCopy(of: "store-v11.logstore") { url in
            try await withStore(at: url, options: []) { store in
                #expect(try await store.info().schemaVersion == LogStore.Version(Migrations.latestVersion, 0, 0))
                try await checkV11Contents(store)
                #expect(try await store.info().shippers.isEmpty)
                let history = try await store.historyStatus()
                // This process joins them as its implicit batch author.
                #expect(history.authors.map(\.name).filter { !$0.hasPrefix(HistoryConfiguration.unconfiguredAuthorPrefix) }.sorted()
                    == ["api", "worker"])
                #expect(history.shippers.isEmpty)
            }
        }
    }

    @Test func storeV11OpensReadOnly() async throws {
        try await withCopy(of: "store-v11.logstore") { url in
            try await withStore(at: url, options: [.readonly]) { store in
                #expect(try await store.info().schemaVersion == LogStore.Version(11, 0, 0))
                try await checkV11Contents(store)
                #expect(try await store.info().shippers.isEmpty)
            }
        }
    }

    // MARK: Schema 12

    /// `store-v12.logstore`'s contents (Fixtures/README.md).
    private func checkV12Contents(_ store: LogStore) async throws {
        #expect(try await store.count(MessageQuery()) == 400)
        #expect(try await store.count(MessageQuery(includesTaskMessages: true)) == 438)
        #expect(try await store.count(MessageQuery(levels: .warning ... .critical)) == 41)
        #expect(try await store.count(MessageQuery(labels: ["http"])) == 92)
        #expect(try await store.tasks(TaskQuery(states: [.success], limit: 100)).tasks.count == 30)
        #expect(try await store.count(TaskQuery(urlText: .plain("catalog"))) == 14)
        #expect(try await store.info().storeID == UUID(uuidString: "FE04D753-36CC-4D99-9830-91110C20C59E"))
    }

    /// Schema 13 drops the tasks' insert trigger: the writer indexes the tasks it inserts. A
    /// store of schema 12 keeps its indexed tasks and indexes the ones it gains, once each.
    @Test func storeV12IndexesTheTasksItGainsOnce() async throws {
        try await withCopy(of: "store-v12.logstore") { url in
            try await withStore(at: url, options: []) { store in
                #expect(try await store.info().schemaVersion == LogStore.Version(Migrations.latestVersion, 0, 0))
                try await checkV12Contents(store)
                store.storeRequest(
                    NetworkRequest(url: URL(string: "https://catalog.shop.internal/after-migration")),
                    response: NetworkResponse(statusCode: 200), error: nil, data: nil)
                try await store.flush()
                #expect(try await store.count(TaskQuery(urlText: .plain("catalog"))) == 15)
                #expect(try await store.count(TaskQuery(urlText: .plain("migration"))) == 1)
            }
            // FTS5's own check: every row of `tasks` is in `task_search` exactly as it reads.
            try TaskQueryTests.checkSearchIndex(url)
        }
    }

    @Test func storeV12OpensReadOnly() async throws {
        try await withCopy(of: "store-v12.logstore") { url in
            try await withStore(at: url, options: [.readonly]) { store in
                #expect(try await store.info().schemaVersion == LogStore.Version(12, 0, 0))
                try await checkV12Contents(store)
            }
        }
    }

    // MARK: Archive format 1

    /// The archive of the previous version (schema 6, archive format 1; it records library
    /// 0.4.0) opens read-only with everything in it, its private copy migrated to this schema.
    /// Opening an archive only reads it, so the fixture itself is opened.
    @Test func archiveV1OpensAndReadsEverything() async throws {
        let archive = try await LogStore(archiveURL: Self.fixtures.appendingPathComponent("archive-v1.lsarchive"))
        let info = try #require(archive.archiveInfo)
        #expect(info.formatVersion == 1)
        #expect(info.schemaVersion == 6)
        #expect(info.libraryVersion == "0.4.0")
        #expect(info.storeID == UUID(uuidString: "FC5443DE-4C24-4B9F-980F-58B1AA02F597"))
        #expect(info.sourceStoreID == UUID(uuidString: "739315A0-8823-4D20-ADF9-8615059FE8FE"))
        #expect(info.messageCount == 438)  // 400 messages and 38 technical ones
        #expect(info.taskCount == 40)
        #expect(info.blobCount == 37)
        #expect(info.sessions.map(\.id.uuidString) == [
            "2E67CC4E-2569-48D9-8AE9-F1A63F1194F3", "303A9D7C-CF96-48D7-8DA8-A9247AC213AD",
            "50785340-3480-4F39-AB95-8AE029A4F289",
        ])

        let storeInfo = try await archive.info()
        #expect(storeInfo.storeID == info.storeID)
        #expect(storeInfo.schemaVersion == LogStore.Version(Migrations.latestVersion, 0, 0))
        #expect(storeInfo.taskCount == 40)
        #expect(storeInfo.blobCount == 37)
        #expect(try await archive.count(MessageQuery()) == 400)
        #expect(try await archive.count(MessageQuery(includesTaskMessages: true)) == 438)
        #expect(try await archive.count(MessageQuery(levels: .error ... .critical, includesTaskMessages: true)) == 17)
        #expect(try await archive.sessions().count == 3)
        #expect(try await archive.tasks(TaskQuery(states: [.pending])).tasks.count == 2)
        #expect(try await archive.tasks(TaskQuery(states: [.failure])).tasks.count == 5)

        // The largest body, a file kept in the archive, zlib-compressed there.
        let taskID = try #require(UUID(uuidString: "06D4560D-BF81-4A94-97CA-2B0386C9F323"))
        let task = try #require(try await archive.task(id: taskID))
        #expect(task.summary.host == "reports.shop.internal")
        #expect(task.summary.statusCode == 200)
        #expect(task.responseBodyKey == "377465b6630eddbb9b8e68fa052ae7bc10d6666c")
        let body = try #require(try await archive.blobData(forKey: "377465b6630eddbb9b8e68fa052ae7bc10d6666c"))
        #expect(body.count == 748_488)
        #expect(body.starts(with: Data("order_id,created_at,customer_id,sku".utf8)))
        try await archive.close()
    }
}
