#if SwiftLog
import Foundation
import LogStore
import Logging
import Synchronization
import Testing

/// `LogStoreLogHandler` hands the call's metadata over as swift-log's dictionaries and the writer
/// converts them: what hooks, subscribers and the byte bound see must be what they saw when the
/// caller's thread converted, and what depends on the caller must still be read on its thread.
@Suite("swift-log handler, the writer's side")
struct SwiftLogWriterSideTests {
    @TaskLocal static var traceID: String?

    /// An error whose description changes after it is logged.
    final class ChangingError: Error, CustomStringConvertible, Sendable {
        let text = Mutex("disk full")
        var description: String { text.withLock { $0 } }
    }

    static func logger(_ store: LogStore, provider: Logger.MetadataProvider? = nil) -> Logger {
        var logger = Logger(label: "http") { label in
            LogStoreLogHandler(label: label, store: store, logLevel: .trace, metadataProvider: provider)
        }
        logger[metadataKey: "handler"] = "h"
        return logger
    }

    @Test func willHandleEventGetsTheStoresMetadataAndItsChangesAreStored() async throws {
        let seen = Recorder<[LogStore.Metadata?]>([])
        var configuration = LogStore.Configuration()
        configuration.willHandleEvent = { event in
            guard case .messageStored(var message) = event else { return event }
            seen.update { $0.append(message.metadata) }
            message.metadata?["user"] = "<redacted>"
            return .messageStored(message)
        }
        try await withTemporaryStore(configuration: configuration) { store, _ in
            Self.logger(store).info("GET /orders 200", metadata: ["user": "42", "nested": ["ms": "12"]])
            try await store.flush()

            let expected: LogStore.Metadata = [
                "handler": "h", "user": "42", "nested": ["ms": "12"], "source": "LogStoreTests",
            ]
            #expect(seen.current == [expected])
            let stored = try #require(try await allMessages(store).first)
            #expect(stored.metadata["user"] == "<redacted>")
            #expect(stored.metadata["nested"] == ["ms": "12"])
        }
    }

    @Test func subscribersGetTheStoresMetadata() async throws {
        try await withTemporaryStore { store, _ in
            let events = store.subscribeEvents()
            Self.logger(store).warning("slow", metadata: ["ms": "900"], source: "DB")
            try await store.flush()
            var iterator = events.makeAsyncIterator()
            guard case .messageStored(let message)? = await iterator.next() else {
                Issue.record("no message event")
                return
            }
            #expect(message.metadata == ["handler": "h", "ms": "900", "source": "DB"])
            #expect(message.label == "http")
            #expect(message.level == .warning)
        }
    }

    /// The provider's values come from the caller's task locals: it must run on the caller's
    /// task, not on the writer's thread.
    @Test func theMetadataProviderRunsOnTheCallersTask() async throws {
        let provider = Logger.MetadataProvider {
            Self.traceID.map { ["trace": .string($0)] } ?? [:]
        }
        try await withTemporaryStore { store, _ in
            let logger = Self.logger(store, provider: provider)
            Self.$traceID.withValue("abc") { logger.info("traced") }
            logger.info("untraced")
            try await store.flush()

            let stored = try await allMessages(store)
            #expect(stored.map(\.text) == ["traced", "untraced"])
            #expect(stored.map { $0.metadata["trace"] } == ["abc", nil])
        }
    }

    /// The error is described when it is logged, as before: a later change is not stored.
    @Test func anErrorIsDescribedWhenItIsLogged() async throws {
        try await withTemporaryStore { store, _ in
            let error = ChangingError()
            Self.logger(store).error("write failed", error: error)
            error.text.withLock { $0 = "changed afterwards" }
            try await store.flush()

            let stored = try #require(try await allMessages(store).first)
            #expect(stored.metadata["error.message"] == "disk full")
            #expect(stored.metadata["error.type"] == .string(String(reflecting: ChangingError.self)))
        }
    }

    /// swift-log's metadata counts against ``LogStore/Configuration/maxPendingBytes`` before it
    /// is converted, as the store's own metadata does; evicting such messages frees what they
    /// counted.
    @Test func swiftLogMetadataCountsAgainstTheByteBound() async throws {
        let held = HeldWriter()
        let bound = 256 * 1024
        var configuration = LogStore.Configuration()
        configuration.saveInterval = .seconds(600)
        configuration.isGroupCommitEnabled = false
        configuration.maxPendingBytes = bound
        held.hold(&configuration)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            store.storeMessage(label: "first", level: .info, message: "first")
            Task { try await store.flush() }
            try await held.waitUntilHeld()

            // Short texts with 8 KiB of metadata each: 1.6 MiB in all, far past the bound.
            let payload = Logger.MetadataValue.string(String(repeating: "m", count: 4 * 1024))
            let logger = Self.logger(store)
            for index in 0..<200 {
                logger.info("\(index)", metadata: ["request": ["body": payload], "tags": [payload]])
            }
            let info = try await store.info()
            #expect(info.pendingEventBytes <= bound)
            #expect(info.pendingEventCount < 40)
            #expect(info.droppedEventCount > 160)

            held.release()
            try await store.flush()
            let after = try await store.info()
            #expect(after.pendingEventBytes == 0)
            let stored = try await allMessages(store, MessageQuery(labels: ["http"]))
            #expect(stored.count + after.droppedEventCount == 200)
            #expect(stored.allSatisfy { $0.metadata["request"] == ["body": .string(String(repeating: "m", count: 4 * 1024))] })
        }
    }
}
#endif
