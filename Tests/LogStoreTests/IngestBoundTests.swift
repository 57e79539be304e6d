import Foundation
import Testing

@testable import LogStore

/// The ingestion buffer's bound is on what the store holds in memory: committed events count
/// until the background has freed them.
@Suite("Ingest bound")
struct IngestBoundTests {
    static func message(_ text: String, level: LogStore.Level = .info) -> LogStore.Event {
        .messageStored(
            LogStore.Event.MessageCreated(
                createdAt: Date(), label: "bound", level: level, message: text, metadata: nil,
                file: #fileID, function: #function, line: #line))
    }

    static func isAccepted(_ result: IngestBuffer.AppendResult) -> Bool {
        if case .accepted = result { true } else { false }
    }

    @Test func committedEventsHoldTheirRoomUntilFreed() throws {
        let buffer = IngestBuffer(capacity: 3, policy: .waitForSpace)
        for index in 0..<3 { #expect(Self.isAccepted(buffer.append(Self.message("m\(index)")))) }
        let batch = try #require(buffer.take())
        buffer.retire(batch.taken)
        #expect(buffer.pendingCount == 0, "committed events are no longer pending")
        guard case .full = buffer.append(Self.message("while held")) else {
            Issue.record("an event was accepted while the committed ones were still held")
            return
        }
        buffer.free(batch.taken)
        #expect(Self.isAccepted(buffer.append(Self.message("after free"))))
    }

    @Test func droppingPolicyCountsHeldEventsAgainstTheBound() throws {
        let buffer = IngestBuffer(capacity: 2, policy: .dropLowestLevelsFirst)
        #expect(Self.isAccepted(buffer.append(Self.message("first"))))
        let batch = try #require(buffer.take())
        buffer.retire(batch.taken)
        #expect(Self.isAccepted(buffer.append(Self.message("second", level: .debug))))
        // Full with one held and one waiting: the waiting debug message makes room, the held
        // one cannot be evicted.
        #expect(Self.isAccepted(buffer.append(Self.message("third", level: .error))))
        #expect(buffer.droppedCount == 1)
        #expect(buffer.pendingCount == 1)
        buffer.free(batch.taken)
        #expect(Self.isAccepted(buffer.append(Self.message("fourth"))))
        #expect(buffer.droppedCount == 1)
    }
}
