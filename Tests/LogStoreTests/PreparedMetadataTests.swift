import Foundation
import LogStore
import Testing

/// The writer encodes a batch's metadata JSON before it commits (in the background under load):
/// every message must still get its own metadata, after a hook changed it and when a failed
/// batch is retried in front of newer events.
@Suite("Prepared metadata")
struct PreparedMetadataTests {
    /// The metadata message `index` is logged with: none, empty, or a few keys, one of them
    /// needing escapes.
    static func metadata(_ index: Int) -> LogStore.Metadata? {
        switch index % 4 {
        case 0: nil
        case 1: [:]
        default: ["index": .string(String(index)), "quote\"d": .string("line\nbreak \u{1}"), "z": .array([.string("a")])]
        }
    }

    /// Every stored message of `label`, its text (an index) paired with its metadata.
    static func stored(_ store: LogStore, label: String) async throws -> [(text: String, metadata: LogStore.Metadata)] {
        try await allMessages(store, MessageQuery(labels: [label])).map { ($0.text, $0.metadata) }
    }

    @Test func aRetriedBatchAndTheEventsBehindItKeepTheirOwnMetadata() async throws {
        var configuration = LogStore.Configuration()
        configuration.saveInterval = .milliseconds(20)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            store.storeMessage(label: "m", level: .info, message: "0", metadata: Self.metadata(0))
            try await store.flush()
            try await WriteFailureTests.setFull(store, true)
            for index in 1...40 {
                store.storeMessage(label: "m", level: .info, message: String(index), metadata: Self.metadata(index))
            }
            // Those fail and go back to the head of the buffer; the next ones queue behind them.
            let failed: Bool? = try await withinDeadline(seconds: 30) {
                while try await store.info().writeErrorCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
                return true
            }
            #expect(failed == true)
            for index in 41...80 {
                store.storeMessage(label: "m", level: .info, message: String(index), metadata: Self.metadata(index))
            }
            try await WriteFailureTests.setFull(store, false)
            let flushed: Bool? = try await withinDeadline(seconds: 30) { try await store.flush(); return true }
            #expect(flushed == true)

            let stored = try await Self.stored(store, label: "m")
            #expect(stored.map(\.text) == (0...80).map(String.init))
            for message in stored {
                let index = Int(message.text) ?? -1
                #expect(message.metadata == Self.metadata(index) ?? [:], "message \(index)")
            }
        }
    }

    @Test func theMetadataAHookReturnsIsTheOneStored() async throws {
        var configuration = LogStore.Configuration()
        configuration.willHandleEvent = { event in
            guard case .messageStored(var message) = event else { return event }
            let index = Int(message.message) ?? 0
            if index % 5 == 0 { return nil }
            message.metadata = index % 2 == 0 ? nil : ["hooked": .string(String(index))]
            return .messageStored(message)
        }
        try await withTemporaryStore(configuration: configuration) { store, _ in
            for index in 1...60 {
                store.storeMessage(label: "h", level: .info, message: String(index), metadata: Self.metadata(index))
            }
            try await store.flush()
            let stored = try await Self.stored(store, label: "h")
            #expect(stored.map(\.text) == (1...60).filter { $0 % 5 != 0 }.map(String.init))
            for message in stored {
                let index = Int(message.text) ?? -1
                let expected: LogStore.Metadata = index % 2 == 0 ? [:] : ["hooked": .string(String(index))]
                #expect(message.metadata == expected, "message \(index)")
            }
        }
    }

    @Test func metadataOverTheLimitIsCutAsBefore() async throws {
        try await withTemporaryStore { store, _ in
            let long = String(repeating: "é", count: LogStore.maxMetadataBytes)
            store.storeMessage(label: "cut", level: .info, message: "1", metadata: ["long": .string(long)])
            store.storeMessage(label: "cut", level: .info, message: "2", metadata: ["short": .string("kept")])
            try await store.flush()
            let stored = try await Self.stored(store, label: "cut")
            #expect(stored.count == 2)
            #expect(stored.first?.metadata.keys.sorted() == ["_truncated"])
            #expect(stored.last?.metadata == ["short": .string("kept")])
        }
    }
}
