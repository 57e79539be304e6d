import Dispatch
import Foundation
@testable import LogStore
import Testing

@Suite("Sessions")
struct SessionTests {
    @Test func currentSessionIsTheLastStoredOne() async throws {
        var configuration = LogStore.Configuration()
        configuration.appVersion = "3.1.4"
        try await withTemporaryStore(configuration: configuration) { store, _ in
            let stored = try #require(try await store.sessions().last)
            let current = store.session
            #expect(stored.id == current.id)
            #expect(abs(stored.startDate.timeIntervalSince(current.startDate)) < 0.001)
            #expect(stored.app == current.app)
            #expect(stored.host == current.host)
            #expect(stored.hostChanges == [])
            #expect(current.hostChanges == [])
            #expect(try await store.info().currentSession?.id == current.id)
        }
    }

    @Test func sessionRecordsTheProcessAndTheHost() async throws {
        var configuration = LogStore.Configuration()
        configuration.appVersion = "3.1.4"
        let before = Date()
        try await withTemporaryStore(configuration: configuration) { store, _ in
            let session = try #require(try await store.sessions().last)
            #expect(session.startDate >= before.addingTimeInterval(-0.001))
            #expect(session.startDate <= Date())

            let app = session.app
            #expect(app.version == "3.1.4")
            #expect(app.pid == ProcessInfo.processInfo.processIdentifier)
            #expect(app.arguments == ProcessInfo.processInfo.arguments)
            #expect(!app.name.isEmpty)
            #expect(app.residentMemory > 0)

            let host = session.host
            #expect(host.hostname == ProcessInfo.processInfo.hostName)
            #expect(!host.kernelVersion.isEmpty)
            #expect(!host.architecture.isEmpty)
            #expect(!host.osName.isEmpty)
            #expect(host.cpuCount == ProcessInfo.processInfo.activeProcessorCount)
            #expect(host.memoryTotal > 0)
            #expect(host.memoryAvailable > 0 && host.memoryAvailable <= host.memoryTotal)
            #expect(host.diskTotal > 0)
            #expect(host.diskFree > 0 && host.diskFree <= host.diskTotal)
            #expect(host.uptime > 0)
            #expect(host.networkInterfaces.contains { $0.addresses.contains("127.0.0.1") })
        }
    }

    @Test func everyOpenAddsASession() async throws {
        try await withTemporaryStoreURL { url in
            let first = try await withStore(at: url) { store in store.session }
            let second = try await withStore(at: url) { store in store.session }
            try await withStore(at: url) { store in
                let sessions = try await store.sessions()
                #expect(sessions.map(\.id) == [first.id, second.id, store.session.id])
                #expect(Set(sessions.map(\.id)).count == 3)
                #expect(sessions.map(\.startDate) == sessions.map(\.startDate).sorted())
                // Same machine, same OS and kernel: nothing to report.
                #expect(sessions.allSatisfy { $0.hostChanges.isEmpty })
                #expect(try await store.info().sessionCount == 3)
            }
        }
    }

    @Test(.enabled(if: SQLiteShell.isAvailable, "needs /usr/bin/sqlite3"))
    func aNewKernelSinceTheLastSessionIsReported() async throws {
        try await withTemporaryStoreURL { url in
            let kernel = try await withStore(at: url) { store in store.session.host.kernelVersion }
            try #require(!kernel.isEmpty)
            // As if the previous run had happened before a kernel upgrade.
            try SQLiteShell.run(
                url.appendingPathComponent("logs.sqlite"),
                "UPDATE sessions SET host = json_set(host, '$.kernelVersion', '0.0.1-old')")
            try await withStore(at: url) { store throws in
                let expected = ["Kernel changed from 0.0.1-old to \(kernel)"]
                #expect(store.session.hostChanges == expected)
                #expect(try await store.sessions().last?.hostChanges == expected)
            }
        }
    }

    @Test func removeSessionsRemovesTheirMessagesAndRowsOnly() async throws {
        try await withTemporaryStoreURL { url in
            var past: [UUID] = []
            for run in 0..<2 {
                past.append(try await withStore(at: url) { store in
                    for i in 0..<5 { store.storeMessage(label: "run\(run)", level: .info, message: "run\(run) \(i)") }
                    try await store.flush()
                    return store.session.id
                })
            }
            try await withStore(at: url) { store in
                store.storeMessage(label: "run2", level: .info, message: "current")
                try await store.flush()

                try await store.removeSessions([past[0]])
                #expect(try await store.sessions().map(\.id) == [past[1], store.session.id])
                let texts = try await allMessages(store).map(\.text)
                #expect(texts == (0..<5).map { "run1 \($0)" } + ["current"])
                #expect(try await store.messages(MessageQuery(sessions: [past[0]])).messages.isEmpty)
                #expect(try await store.info().messageCount == 6)

                // Unknown ids and an empty set change nothing.
                try await store.removeSessions([UUID()])
                try await store.removeSessions([])
                #expect(try await store.info().messageCount == 6)
                #expect(try await store.info().sessionCount == 2)
            }
        }
    }

    @Test func removingTheCurrentSessionKeepsItsRowAndLogging() async throws {
        try await withTemporaryStoreURL { url in
            let past = try await withStore(at: url) { store in
                store.storeMessage(label: "old", level: .info, message: "old")
                try await store.flush()
                return store.session.id
            }
            try await withStore(at: url) { store in
                store.storeMessage(label: "new", level: .info, message: "gone")
                try await store.flush()
                try await store.removeSessions([store.session.id])
                #expect(try await allMessages(store).map(\.text) == ["old"])
                #expect(try await store.sessions().map(\.id) == [past, store.session.id])

                store.storeMessage(label: "new", level: .info, message: "still logging")
                try await store.flush()
                let latest = try await store.messages(MessageQuery(limit: 1)).messages.first
                #expect(latest?.text == "still logging")
                #expect(latest?.sessionID == store.session.id)
            }
        }
    }

    @Test func removeAllKeepsOnlyTheCurrentSessionAndLoggingGoesOn() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                for i in 0..<10 { store.storeMessage(label: "http", level: .info, message: "past \(i)") }
            }
            try await withStore(at: url) { store in
                for i in 0..<10 { store.storeMessage(label: "db", level: .error, message: "now \(i)") }
                try await store.flush()

                try await store.removeAll()
                let emptied = try await store.info()
                #expect(emptied.messageCount == 0)
                #expect(emptied.sessionCount == 1)
                #expect(try await store.sessions().map(\.id) == [store.session.id])
                #expect(try await allMessages(store).isEmpty)

                // Labels seen before are written again (the writer's caches were reset).
                store.storeMessage(label: "db", level: .warning, message: "after")
                store.storeMessage(label: "new", level: .info, message: "fresh label")
                try await store.flush()
                let messages = try await allMessages(store)
                #expect(messages.map(\.text) == ["after", "fresh label"])
                #expect(messages.map(\.label) == ["db", "new"])
                #expect(messages.allSatisfy { $0.sessionID == store.session.id })
                #expect(try await store.messages(MessageQuery(labels: ["db"])).messages.map(\.text) == ["after"])
            }
        }
    }

    @Test func removeAllRemovesWhatWasLoggedBeforeTheCall() async throws {
        // Hold the writer inside `willHandleEvent` with a batch already taken, so that the next
        // message waits in the buffer while `removeAll` is queued behind it.
        let held = HeldWriter()
        var configuration = LogStore.Configuration()
        configuration.saveInterval = .seconds(600)
        configuration.isGroupCommitEnabled = false
        held.hold(&configuration)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            store.storeMessage(label: "app", level: .info, message: "in the held batch")
            let flush = Task { try await store.flush() }
            try await held.waitUntilHeld()
            store.storeMessage(label: "app", level: .info, message: "waiting in the buffer")
            let removal = Task { try await store.removeAll() }
            // The removal's work is queued behind the held batch before the writer goes on:
            // the order this test is about.
            try await waitFor { (store.core.writer?.jobs.count ?? 0) > 0 }
            held.release()
            try await flush.value
            try await removal.value

            #expect(try await allMessages(store).map(\.text) == [])
            store.storeMessage(label: "app", level: .info, message: "after")
            try await store.flush()
            #expect(try await allMessages(store).map(\.text) == ["after"])
        }
    }

    @Test func removeAllFromOneProcessLetsAnotherKeepLogging() async throws {
        // Two stores open on one directory, as two processes would be.
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { other in
                other.storeMessage(label: "other", level: .info, message: "before")
                try await other.flush()
                try await withStore(at: url) { store in
                    try await store.removeAll()
                }
                other.storeMessage(label: "other", level: .info, message: "after")
                try await other.flush()
                let messages = try await allMessages(other)
                #expect(messages.map(\.text) == ["after"])
                #expect(messages.first?.sessionID == other.session.id)
            }
        }
    }
}
