import Foundation
import Testing

// `@testable` only to lower `max_page_count` on the writer's own connection (`core.write`), for
// a real commit failure (SQLITE_FULL) that calls `onWriteError`.
@testable import LogStore

/// Hooks run on the writer's work: a hook that logs into its own store must not make the writer
/// wait for itself. Each check runs within a deadline, so a deadlock fails the test; the stuck
/// store is then left open (closing it would hang too).
@Suite("Hooks that log")
struct HookLoggingTests {
    @Test func willHandleEventMayLogIntoASynchronousStore() async throws {
        let box = Recorder<LogStore?>(nil)
        var configuration = LogStore.Configuration()
        configuration.willHandleEvent = { event in
            if case .messageStored(let message) = event, message.message == "trigger" {
                box.current?.storeMessage(label: "hook", level: .info, message: "from the hook")
            }
            return event
        }
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create, .synchronous], configuration: configuration)
            box.update { $0 = store }
            let returned = await returnsWithinDeadline(seconds: 30) {
                store.storeMessage(label: "app", level: .info, message: "trigger")
            }
            #expect(returned, "a synchronous logging call deadlocked on a hook that logs")
            guard returned else { return }
            let flushed: Bool? = try await withinDeadline(seconds: 30) { try await store.flush(); return true }
            #expect(flushed != nil)
            #expect(try await allMessages(store).map(\.text) == ["trigger", "from the hook"])
            box.update { $0 = nil }
            try await store.close()
        }
    }

    @Test func onWriteErrorMayLogIntoASynchronousStore() async throws {
        let box = Recorder<LogStore?>(nil)
        let calls = Recorder(0)
        var configuration = LogStore.Configuration()
        configuration.onWriteError = { error in
            guard calls.update({ $0 += 1; return $0 }) == 1 else { return }
            box.current?.storeMessage(label: "hook", level: .error, message: "write failed")
        }
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create, .synchronous], configuration: configuration)
            box.update { $0 = store }
            try await store.core.write { try $0.connection.execute("PRAGMA max_page_count = 1") }
            // Larger than the free pages a new store has (its migrations drop tables).
            let text = String(repeating: "z", count: 40_000)
            let returned = await returnsWithinDeadline(seconds: 30) {
                store.storeMessage(label: "app", level: .info, message: text)
            }
            #expect(returned)
            guard returned else { return }
            #expect(calls.current >= 1)
            let recovered = try await withinDeadline(seconds: 30) { () async throws -> [String] in
                try await store.core.write { try $0.connection.execute("PRAGMA max_page_count = 1073741823") }
                try await store.flush()
                return try await allMessages(store).map(\.text)
            }
            #expect(recovered != nil, "the writer deadlocked on a hook that logs")
            #expect(recovered?.count == 2)
            #expect(recovered?.last == "write failed")
            guard recovered != nil else { return }
            box.update { $0 = nil }
            try await store.close()
        }
    }

    /// A `.synchronous` call that comes back from a failed commit finds the failure already
    /// reported: the writer ran `onWriteError` only after letting the waiting call go, so a
    /// caller checking its hook's record could miss it (seen under ThreadSanitizer's timing).
    @Test func aSynchronousCallReturnsAfterOnWriteErrorHasReportedTheFailure() async throws {
        let reported = Recorder(false)
        var configuration = LogStore.Configuration()
        configuration.onWriteError = { _ in
            // Slow on purpose: a call let go before the hook ends would find `false`.
            usleep(200_000)
            reported.update { $0 = true }
        }
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create, .synchronous], configuration: configuration)
            try await store.core.write { try $0.connection.execute("PRAGMA max_page_count = 1") }
            let reportedAtReturn = Recorder<Bool?>(nil)
            let returned = await returnsWithinDeadline(seconds: 30) {
                // Larger than the free pages a new store has (its migrations drop tables).
                store.storeMessage(label: "app", level: .info, message: String(repeating: "z", count: 40_000))
                reportedAtReturn.update { $0 = reported.current }
            }
            #expect(returned)
            guard returned else { return }
            #expect(reportedAtReturn.current == true, "storeMessage returned before onWriteError had the failure")
            try await store.core.write { try $0.connection.execute("PRAGMA max_page_count = 1073741823") }
            try await store.close()
        }
    }
}
