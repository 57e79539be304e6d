import Dispatch
import Foundation
import Glibc
import LogStore
import Testing

@Suite("Store lifecycle")
struct StoreLifecycleTests {
    // MARK: Creating and opening

    @Test func createsTheStoreDirectoryWithItsFiles() async throws {
        try await withTemporaryStoreURL { url in
            #expect(!FileManager.default.fileExists(atPath: url.path))
            try await withStore(at: url) { store in
                let info = try await store.info()
                #expect(info.messageCount == 0)
                #expect(info.sessionCount == 1)
                #expect(info.currentSession?.id == store.session.id)
                #expect(info.schemaVersion.major >= 1)
            }
            let files = try directoryListing(url)
            #expect(files.contains("logs.sqlite"))
            #expect(files.contains("manifest.json"))
        }
    }

    @Test func opensAnExistingStoreWithoutCreate() async throws {
        try await withTemporaryStoreURL { url in
            let storeID = try await withStore(at: url) { store in
                store.storeMessage(label: "app", level: .info, message: "first run")
                try await store.flush()
                return try await store.info().storeID
            }
            try await withStore(at: url, options: []) { store in
                let info = try await store.info()
                #expect(info.storeID == storeID)
                #expect(try await allMessages(store).map(\.text) == ["first run"])
            }
        }
    }

    @Test func missingDirectoryWithoutCreateIsFileDoesntExist() async throws {
        try await withTemporaryStoreURL { url in
            for options: LogStore.Options in [[], [.sweep], [.readonly], [.create, .readonly]] {
                let error = await #expect(throws: LogStoreError.self) {
                    try await LogStore(storeURL: url, options: options)
                }
                guard let error, error.kind == .fileDoesntExist, let reported = error.url else {
                    Issue.record("expected fileDoesntExist for \(options), got \(String(describing: error))")
                    continue
                }
                #expect(reported == url)
                #expect(!FileManager.default.fileExists(atPath: url.path), "nothing may be created")
            }
        }
    }

    @Test func reopeningKeepsMessagesAndAddsASession() async throws {
        try await withTemporaryStoreURL { url in
            let first = try await withStore(at: url) { store in
                for i in 0..<5 { store.storeMessage(label: "run", level: .info, message: "one \(i)") }
                try await store.flush()
                return store.session.id
            }
            try await withStore(at: url) { store in
                #expect(store.session.id != first)
                store.storeMessage(label: "run", level: .info, message: "two")
                try await store.flush()

                let sessions = try await store.sessions()
                #expect(sessions.map(\.id) == [first, store.session.id])
                let messages = try await allMessages(store)
                #expect(messages.map(\.text) == ["one 0", "one 1", "one 2", "one 3", "one 4", "two"])
                #expect(messages.map(\.sessionID) == Array(repeating: first, count: 5) + [store.session.id])
                #expect(try await store.info().sessionCount == 2)
            }
        }
    }

    // MARK: Options

    @Test func readonlyIgnoresLoggingRefusesWritesAndWritesNoSession() async throws {
        try await withTemporaryStoreURL { url in
            let writerSession = try await withStore(at: url) { store in
                for i in 0..<3 { store.storeMessage(label: "app", level: .warning, message: "kept \(i)") }
                try await store.flush()
                return store.session.id
            }
            let database = url.appendingPathComponent("logs.sqlite")
            let bytesBefore = try Data(contentsOf: database)

            try await withStore(at: url, options: [.readonly]) { store throws in
                store.storeMessage(label: "app", level: .critical, message: "ignored")
                try await store.flush()

                let removeAll = await #expect(throws: LogStoreError.self) { try await store.removeAll() }
                #expect(removeAll?.kind == .readonly)
                let removeSessions = await #expect(throws: LogStoreError.self) {
                    try await store.removeSessions([writerSession])
                }
                #expect(removeSessions?.kind == .readonly)

                let messages = try await allMessages(store)
                #expect(messages.map(\.text) == ["kept 0", "kept 1", "kept 2"])
                let info = try await store.info()
                #expect(info.messageCount == 3)
                #expect(info.currentSession == nil)
                #expect(try await store.sessions().map(\.id) == [writerSession])
            }
            #expect(try Data(contentsOf: database) == bytesBefore, "a read-only open must not write")

            // The next writable open sees one earlier session: the read-only one left none.
            try await withStore(at: url) { store throws in
                #expect(try await store.sessions().map(\.id) == [writerSession, store.session.id])
                #expect(try await store.info().messageCount == 3)
            }
        }
    }

    @Test func inMemoryWritesNothingAtTheURL() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url, options: [.create, .inMemory]) { store in
                for i in 0..<20 {
                    store.storeMessage(label: i.isMultiple(of: 2) ? "even" : "odd", level: .info, message: "m\(i)")
                }
                try await store.flush()

                let odd = try await store.messages(MessageQuery(labels: ["odd"], order: .oldestFirst))
                #expect(odd.messages.map(\.text) == stride(from: 1, to: 20, by: 2).map { "m\($0)" })
                let info = try await store.info()
                #expect(info.messageCount == 20)
                #expect(info.sessionCount == 1)
                #expect(try await store.sessions().map(\.id) == [store.session.id])
                #expect(!FileManager.default.fileExists(atPath: url.path))
            }
            #expect(!FileManager.default.fileExists(atPath: url.path))
            #expect(try directoryListing(url.deletingLastPathComponent()).isEmpty)
        }
    }

    @Test func unsafeStoreWorksAndReopensNormally() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url, options: [.create, .unsafe]) { store in
                for i in 0..<1_000 { store.storeMessage(label: "bulk", level: .debug, message: "row \(i)") }
                try await store.flush()
                #expect(try await store.info().messageCount == 1_000)
                // No journal of any kind beside the database.
                #expect(try directoryListing(url) == ["logs.sqlite", "manifest.json"])
            }
            try await withStore(at: url) { store in
                let messages = try await allMessages(store)
                #expect(messages.count == 1_000)
                #expect(messages.last?.text == "row 999")
                let journal = try await store.read { db in try db.scalar("PRAGMA journal_mode") }
                #expect(journal?.text?.lowercased() == "wal")
                store.storeMessage(label: "bulk", level: .debug, message: "after")
                try await store.flush()
                #expect(try await store.info().messageCount == 1_001)
            }
        }
    }

    // MARK: Closing and destroying

    @Test func everyCallAfterCloseThrowsClosed() async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url)
            store.storeMessage(label: "app", level: .info, message: "before close")
            try await store.close()

            // Logging after close is ignored, and must not crash or block.
            store.storeMessage(label: "app", level: .error, message: "after close")

            let calls: [(String, @Sendable () async throws -> Void)] = [
                ("flush", { try await store.flush() }),
                ("info", { _ = try await store.info() }),
                ("messages", { _ = try await store.messages(MessageQuery()) }),
                ("sessions", { _ = try await store.sessions() }),
                ("read", { _ = try await store.read { db in try db.scalar("SELECT 1") } }),
                ("removeAll", { try await store.removeAll() }),
                ("removeSessions", { try await store.removeSessions([store.session.id]) }),
            ]
            for (name, call) in calls {
                let error = await #expect(throws: LogStoreError.self, "\(name)") { try await call() }
                #expect(error?.kind == .closed, "\(name)")
            }
            // A second close is harmless.
            try await store.close()

            // Close drained what was logged before it, and nothing after it.
            try await withStore(at: url) { reopened throws in
                #expect(try await allMessages(reopened).map(\.text) == ["before close"])
            }
        }
    }

    @Test func closeCheckpointsTheWriteAheadLog() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                for i in 0..<100 { store.storeMessage(label: "app", level: .info, message: "m\(i)") }
            }
            let wal = url.appendingPathComponent("logs.sqlite-wal")
            let walSize = (try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int) ?? 0
            #expect(walSize == 0, "after close the database file alone holds the store")
        }
    }

    @Test func destroyRemovesTheDirectoryAndLaterCallsThrow() async throws {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url)
            store.storeMessage(label: "app", level: .info, message: "doomed")
            try await store.flush()
            #expect(FileManager.default.fileExists(atPath: url.path))

            try await store.destroy()
            #expect(!FileManager.default.fileExists(atPath: url.path))

            store.storeMessage(label: "app", level: .info, message: "after destroy")
            let info = await #expect(throws: LogStoreError.self) { try await store.info() }
            #expect(info?.kind == .closed)
            let flush = await #expect(throws: LogStoreError.self) { try await store.flush() }
            #expect(flush?.kind == .closed)
            // Destroying twice or closing afterwards is harmless, and recreates nothing.
            try await store.destroy()
            try await store.close()
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
    }

    // MARK: Concurrent closing, and release

    /// Opens a store whose writer is held on the store's first message, logged here.
    private func openHeld(_ url: URL, _ held: HeldWriter) async throws -> LogStore {
        var configuration = LogStore.Configuration()
        configuration.saveInterval = .milliseconds(10)
        held.hold(&configuration)
        let store = try await LogStore(storeURL: url, options: [.create], configuration: configuration)
        store.storeMessage(label: "app", level: .info, message: "held")
        try await held.waitUntilHeld()
        return store
    }

    /// Returns once a close has begun (calls then throw `closed`); at most 20 s (the whole suite
    /// shares two cores: the close's task may wait its turn for seconds).
    private func waitUntilClosing(_ store: LogStore) async throws {
        let deadline = ContinuousClock.now + .seconds(TimeScale.scaled(20))
        while ContinuousClock.now < deadline {
            do {
                _ = try await store.info()
            } catch LogStoreError.closed {
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("the close never began")
    }

    /// Lets the writer go 100 ms from now, from a thread of its own, and records that it did.
    private func release(_ held: HeldWriter, after delay: Int = 100) -> Recorder<Bool> {
        let released = Recorder(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) {
            released.update { $0 = true }
            held.release()
        }
        return released
    }

    @Test func aSecondCloseWaitsForTheFirstOnesDrain() async throws {
        try await withTemporaryStoreURL { url in
            let held = HeldWriter()
            let store = try await openHeld(url, held)
            let first = Task { try await store.close() }
            try await waitUntilClosing(store)
            let released = release(held)
            try await store.close()
            #expect(released.current, "the second close returned while the first was still draining")
            try await first.value
            try await withStore(at: url, options: [.readonly]) { reopened throws in
                #expect(try await allMessages(reopened).map(\.text) == ["held"])
            }
        }
    }

    @Test func destroyDuringCloseWaitsForTheDrainThenStaysDestroyed() async throws {
        try await withTemporaryStoreURL { url in
            let held = HeldWriter()
            let store = try await openHeld(url, held)
            let closing = Task { try await store.close() }
            try await waitUntilClosing(store)
            let released = release(held)
            try await store.destroy()
            #expect(released.current, "destroy deleted the files under the draining writer")
            #expect(!FileManager.default.fileExists(atPath: url.path))
            try await closing.value
            // The close that was draining does not turn the store back into merely closed.
            try await store.destroy()
            try await store.close()
            #expect(!FileManager.default.fileExists(atPath: url.path))
            let info = await #expect(throws: LogStoreError.self) { try await store.info() }
            #expect(info?.kind == .closed)
        }
    }

    /// Opens a writable store (sweep scheduled, as by default), logs, and lets it go unclosed.
    private func logAndRelease(_ url: URL) async throws {
        let store = try await LogStore(storeURL: url)
        store.storeMessage(label: "app", level: .info, message: "released")
    }

    /// Whether nobody holds the store directory's lock (every store open for writing holds it).
    private func lockIsFree(_ url: URL) -> Bool {
        let descriptor = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { Glibc.close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }

    /// The files of the store at `url` this process has open (its descriptors in /proc/self/fd).
    private func openFiles(in url: URL) -> [String] {
        let prefix = url.resolvingSymlinksInPath().path + "/"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { descriptor in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
            return target.flatMap { $0.hasPrefix(prefix) ? $0 : nil }
        }
    }

    @Test func aReleasedStoreStopsItsWriterAndLetsGoOfItsFiles() async throws {
        try await withTemporaryStoreURL { url in
            try await logAndRelease(url)
            // The writer drains, closes its connection (the last of the store's descriptors)
            // and ends; the lock goes with it.
            let deadline = ContinuousClock.now + .seconds(TimeScale.scaled(5))
            var stillOpen = openFiles(in: url)
            while !stillOpen.isEmpty || !lockIsFree(url), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                stillOpen = openFiles(in: url)
            }
            #expect(stillOpen.isEmpty, "the released store still has \(stillOpen) open")
            #expect(lockIsFree(url), "the released store still holds its lock")
            // Its writer drained before it stopped.
            try await withStore(at: url, options: [.readonly]) { store throws in
                #expect(try await allMessages(store).map(\.text) == ["released"])
            }
        }
    }

    // MARK: Permissions

    @Test func filesAreOwnerOnly() async throws {
        try await withTemporaryStore { store, url in
            store.storeMessage(label: "secrets", level: .info, message: "token=abc")
            try await store.flush()
            // While the store is open the WAL and its shared-memory index exist.
            #expect(permissions(of: url) == 0o700)
            for name in ["logs.sqlite", "logs.sqlite-wal", "logs.sqlite-shm", "manifest.json"] {
                let mode = try #require(permissions(of: url.appendingPathComponent(name)), "\(name) exists")
                #expect(mode == 0o600, "\(name) has mode \(String(mode, radix: 8))")
            }
        }
    }

    // MARK: Bad input

    @Test func garbageManifestIsStoreInvalidAndUntouched() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                store.storeMessage(label: "app", level: .info, message: "hello")
            }
            let manifest = url.appendingPathComponent("manifest.json")
            let garbage = Data("{ this is not json \u{0} \u{FF}".utf8)
            try garbage.write(to: manifest)
            let databaseBefore = try Data(contentsOf: url.appendingPathComponent("logs.sqlite"))

            for options: LogStore.Options in [[.create, .sweep], [.readonly]] {
                let error = await #expect(throws: LogStoreError.self) {
                    try await LogStore(storeURL: url, options: options)
                }
                #expect(error?.kind == .storeInvalid, "\(options)")
            }
            #expect(try Data(contentsOf: manifest) == garbage)
            #expect(try Data(contentsOf: url.appendingPathComponent("logs.sqlite")) == databaseBefore)
        }
    }

    @Test func garbageDatabaseIsStoreInvalidAndUntouched() async throws {
        try await withTemporaryDirectory { directory in
            // A real manifest, beside a database file that is not SQLite.
            let real = directory.appendingPathComponent("real.logstore")
            try await withStore(at: real) { _ in }
            let broken = directory.appendingPathComponent("broken.logstore")
            try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: false)
            try FileManager.default.copyItem(
                at: real.appendingPathComponent("manifest.json"), to: broken.appendingPathComponent("manifest.json"))
            let database = broken.appendingPathComponent("logs.sqlite")
            let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
            try garbage.write(to: database)

            for options: LogStore.Options in [[.create, .sweep], [.readonly]] {
                let error = await #expect(throws: LogStoreError.self) {
                    try await LogStore(storeURL: broken, options: options)
                }
                #expect(error?.kind == .storeInvalid, "\(options)")
            }
            #expect(try Data(contentsOf: database) == garbage)
            #expect(try directoryListing(broken) == ["logs.sqlite", "manifest.json"])
        }
    }

    @Test(.enabled(if: SQLiteShell.isAvailable, "needs /usr/bin/sqlite3"))
    func newerSchemaIsRefusedAndLeftIntact() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                for i in 0..<10 { store.storeMessage(label: "app", level: .info, message: "keep \(i)") }
            }
            let database = url.appendingPathComponent("logs.sqlite")
            try SQLiteShell.run(database, "PRAGMA user_version = 99")
            let filesBefore = try directoryListing(url)
            let databaseBefore = try Data(contentsOf: database)

            for options: LogStore.Options in [[.create, .sweep], [.readonly]] {
                let error = await #expect(throws: LogStoreError.self) {
                    try await LogStore(storeURL: url, options: options)
                }
                guard let error, error.kind == .unsupportedVersion,
                    let found = error.foundVersion, let supported = error.supportedVersion
                else {
                    Issue.record("expected unsupportedVersion for \(options), got \(String(describing: error))")
                    continue
                }
                #expect(found.major == 99)
                #expect(supported < found)
            }
            // Nothing removed and the database not rewritten. (A read-only SQLite connection may
            // leave the empty WAL and shared-memory files it needed behind: that is SQLite's way.)
            let filesAfter = try directoryListing(url)
            #expect(Set(filesBefore).isSubset(of: filesAfter))
            #expect(Set(filesAfter).subtracting(filesBefore).isSubset(of: ["logs.sqlite-wal", "logs.sqlite-shm"]))
            #expect(try Data(contentsOf: database) == databaseBefore)
            #expect(try SQLiteShell.run(database, "PRAGMA user_version", readOnly: true) == "99")
            #expect(try SQLiteShell.run(database, "SELECT count(*) FROM messages", readOnly: true) == "10")
            #expect(try SQLiteShell.run(database, "SELECT count(*) FROM sessions", readOnly: true) == "1")
        }
    }

    @Test func regularFileInsteadOfDirectoryIsStoreInvalid() async throws {
        try await withTemporaryStoreURL { url in
            let contents = Data("just a file\n".utf8)
            try contents.write(to: url)
            for options: LogStore.Options in [[.create, .sweep], [], [.readonly]] {
                let error = await #expect(throws: LogStoreError.self) {
                    try await LogStore(storeURL: url, options: options)
                }
                #expect(error?.kind == .storeInvalid, "\(options)")
            }
            #expect(try Data(contentsOf: url) == contents)
        }
    }

    @Test func nonEmptyDirectoryWithoutManifestIsNotAdopted() async throws {
        try await withTemporaryStoreURL { url in
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            let unrelated = url.appendingPathComponent("notes.txt")
            try Data("mine".utf8).write(to: unrelated)
            let error = await #expect(throws: LogStoreError.self) { try await LogStore(storeURL: url) }
            #expect(error?.kind == .storeInvalid)
            #expect(try directoryListing(url) == ["notes.txt"])
        }
    }

    /// Root ignores permission bits, so the directory is made immutable (`chattr +i`): then not
    /// even root can create the WAL or any other file in it.
    @Test(.enabled(if: ImmutableDirectory.isSupported, "needs chattr +i on the temporary directory"))
    func readOnlyDirectory() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                for i in 0..<5 { store.storeMessage(label: "app", level: .info, message: "m\(i)") }
            }
            let filesBefore = try directoryListing(url)
            let databaseBefore = try Data(contentsOf: url.appendingPathComponent("logs.sqlite"))
            try ImmutableDirectory.set(url, immutable: true)
            defer { try? ImmutableDirectory.set(url, immutable: false) }

            // Reading works: nothing can be writing a store in a directory no one can write.
            try await withStore(at: url, options: [.readonly]) { store throws in
                #expect(try await allMessages(store).map(\.text) == ["m0", "m1", "m2", "m3", "m4"])
                #expect(try await store.info().messageCount == 5)
            }

            // Opening for writing fails with a typed error naming the file and the OS's reason
            // instead of crashing or half-opening. (SQLite cannot create the WAL.)
            let error = await #expect(throws: LogStoreError.self) { try await LogStore(storeURL: url) }
            guard let error, error.kind == .fileSystem, let file = error.url, let code = error.errno else {
                Issue.record("expected a file-system error, got \(String(describing: error))")
                return
            }
            #expect(file.standardizedFileURL.path == url.standardizedFileURL.path)
            #expect(code == EPERM || code == EACCES || code == EROFS, "errno \(code)")

            #expect(try directoryListing(url) == filesBefore)
            #expect(try Data(contentsOf: url.appendingPathComponent("logs.sqlite")) == databaseBefore)
        }
    }

    /// Two opens racing to create one store agree on its identity: the manifest is created
    /// without replacing one that appeared meanwhile, so neither open is refused as another
    /// store's, and the store opens again afterwards. (Each open writes the manifest with
    /// `link(2)`; before that, the last rename won and the database could record the other id.)
    @Test func twoOpensCreatingOneStoreAgreeOnItsIdentity() async throws {
        for _ in 0..<10 {
            try await withTemporaryStoreURL { url in
                async let first = LogStore(storeURL: url)
                async let second = LogStore(storeURL: url)
                let stores = try await [first, second]
                let ids = try await [stores[0].info().storeID, stores[1].info().storeID]
                #expect(ids[0] == ids[1])
                for store in stores { try await store.close() }
                let reopened = try await withStore(at: url) { store in try await store.info().storeID }
                #expect(reopened == ids[0])
            }
        }
    }
}
