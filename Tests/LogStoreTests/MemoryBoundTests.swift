import Foundation
@testable import LogStore
import Testing

@Suite("Memory bounds")
struct MemoryBoundTests {
    static let byteBound = 256 * 1024

    /// A store bounded to ``byteBound`` pending bytes whose writer is held with a batch taken, so
    /// what `body` logs waits: then released and flushed, and `afterwards` runs.
    private func withHeldStore(
        _ body: (LogStore) async throws -> Void, afterwards: (LogStore) async throws -> Void = { _ in }
    ) async throws {
        let held = HeldWriter()
        var configuration = LogStore.Configuration()
        configuration.saveInterval = .seconds(600)
        configuration.isGroupCommitEnabled = false
        configuration.maxPendingBytes = Self.byteBound
        held.hold(&configuration)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            store.storeMessage(label: "big", level: .info, message: "first")
            Task { try await store.flush() }
            try await held.waitUntilHeld()
            try await body(store)
            held.release()
            try await store.flush()
            try await afterwards(store)
        }
    }

    @Test func pendingEventsAreBoundedInBytes() async throws {
        try await withHeldStore { store in
            // 200 messages of 8 KiB: 1.6 MiB, far more than the bound, far fewer than the count.
            let text = String(repeating: "y", count: 8 * 1024)
            for i in 0..<200 { store.storeMessage(label: "big", level: .info, message: "\(i) \(text)") }
            let info = try await store.info()
            #expect(info.pendingEventBytes <= Self.byteBound)
            #expect(info.pendingEventCount < 40)
            #expect(info.droppedEventCount > 160)
        } afterwards: { store in
            let stored = try await allMessages(store, MessageQuery(labels: ["big"]))
            #expect(stored.count + (try await store.info().droppedEventCount) == 201)
        }
    }

    /// Metadata counts against the byte bound as the text does.
    @Test func metadataCountsAgainstTheByteBound() async throws {
        try await withHeldStore { store in
            // Short texts, 8 KiB of metadata each (nested, as swift-log passes it).
            let payload = String(repeating: "m", count: 4 * 1024)
            for i in 0..<200 {
                store.storeMessage(
                    label: "big", level: .info, message: "\(i)",
                    metadata: ["request": .dictionary(["body": .string(payload)]), "tags": .array([.string(payload)])])
            }
            let info = try await store.info()
            #expect(info.pendingEventBytes <= Self.byteBound)
            #expect(info.pendingEventCount < 40)
        }
    }

    @Test func aSlowSubscriberKeepsTheNewestEventsAndCountsTheRest() async throws {
        let total = LogStore.eventSubscriberBufferLimit + 500
        // The whole burst is held for the writer (past the default bound, the burst's oldest
        // would be dropped before any subscriber saw them): only the subscriber's bound drops.
        var configuration = LogStore.Configuration()
        configuration.maxPendingEvents = total
        try await withTemporaryStore(configuration: configuration) { store, _ in
            let events = store.subscribeEvents()
            for i in 0..<total { store.storeMessage(label: "live", level: .info, message: "\(i)") }
            try await store.flush()
            #expect(try await store.info().droppedSubscriberEventCount == 500)

            let first = try await withinDeadline(seconds: 30) { () -> String? in
                for await event in events {
                    if case .messageStored(let message) = event { return message.message }
                }
                return nil
            }
            #expect(first == "500")
        }
    }

    @Test func networkLoggerForgetsTasksThatNeverCompleteByCount() async throws {
        try await withTemporaryStore { store, _ in
            let logger = NetworkLogger(store: store, maxOpenTasks: 3)
            let ids = (0..<5).map { _ in UUID() }
            for id in ids {
                logger.logTaskCreated(taskID: id, request: NetworkRequest(url: URL(string: "https://a.example/\(id)")))
            }
            #expect(logger.evictedTaskCount == 2)
            #expect(logger.openTaskCount == 3)
            // Completing some leaves the table small; the evicted one completes as never created.
            for id in ids { logger.logTaskCompleted(taskID: id, response: NetworkResponse(statusCode: 200), error: nil) }
            #expect(logger.openTaskCount == 0)
            try await store.flush()
            #expect(try await store.tasks(TaskQuery()).tasks.count == 5)
        }
    }

    @Test func networkLoggerForgetsTasksThatNeverCompleteByBytes() async throws {
        try await withTemporaryStore { store, _ in
            let logger = NetworkLogger(store: store, maxOpenTaskBytes: 1 << 20)
            let chunk = Data(repeating: 7, count: 256 << 10)
            for i in 0..<10 {
                let id = UUID()
                logger.logTaskCreated(taskID: id, request: NetworkRequest(url: URL(string: "https://a.example/\(i)")))
                logger.logDataReceived(taskID: id, data: chunk)
            }
            // Four chunks fit the budget, beside the task being logged (spared by it); the oldest
            // five went, counted.
            #expect(logger.openTaskBytes <= (1 << 20) + chunk.count)
            #expect(logger.openTaskCount == 5)
            #expect(logger.evictedTaskCount == 5)
        }
    }

    /// One large body does not push the other open tasks out: the task being logged is spared
    /// by the byte budget (its body is held to the store's body size limit).
    @Test func oneLargeUploadDoesNotEvictTheOtherOpenTasks() async throws {
        try await withTemporaryStore { store, _ in
            let logger = NetworkLogger(store: store, maxOpenTaskBytes: 1 << 20)
            for i in 0..<3 {
                logger.logTaskCreated(taskID: UUID(), request: NetworkRequest(url: URL(string: "https://a.example/\(i)")))
            }
            let upload = NetworkRequest(url: URL(string: "https://a.example/upload"), method: "PUT", body: Data(count: 2 << 20))
            logger.logTaskCreated(taskID: UUID(), request: upload)
            #expect(logger.evictedTaskCount == 0)
            #expect(logger.openTaskCount == 4)
        }
    }

    @Test func networkLoggerForgetsTasksThatNeverCompleteByAge() async throws {
        let clock = ManualClock()
        var configuration = LogStore.Configuration()
        configuration.timeSource = clock.timeSource
        try await withTemporaryStore(configuration: configuration) { store, _ in
            let logger = NetworkLogger(store: store, openTaskTimeout: .seconds(3_600))
            logger.logTaskCreated(taskID: UUID(), request: NetworkRequest(url: URL(string: "https://a.example/old")))
            clock.advance(by: .seconds(3_599))
            logger.logTaskCreated(taskID: UUID(), request: NetworkRequest(url: URL(string: "https://a.example/middle")))
            #expect(logger.evictedTaskCount == 0)
            clock.advance(by: .seconds(2))
            logger.logTaskCreated(taskID: UUID(), request: NetworkRequest(url: URL(string: "https://a.example/new")))
            #expect(logger.evictedTaskCount == 1)
            #expect(logger.openTaskCount == 2)
        }
    }
}
