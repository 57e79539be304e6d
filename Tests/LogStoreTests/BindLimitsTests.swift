import Foundation
import Testing

// `@testable` only for `aRefusedBindFailsTheCommitNamingTheParameter`, which lowers SQLite's
// length limit on the writer's own connection (`core.write`): the only real way to make a bind
// fail, and no public API reaches that connection.
@testable import LogStore

@Suite("Bind limits")
struct BindLimitsTests {
    @Test func aHugeMessageIsStoredTruncatedAndMarked() async throws {
        try await withTemporaryStore { store, _ in
            // 3 MiB of two-byte characters, so the cut must find a character boundary.
            let text = String(repeating: "é", count: 3 << 19)
            store.storeMessage(label: "big", level: .info, message: text)
            store.storeMessage(label: "big", level: .info, message: "after")
            try await store.flush()

            let messages = try await allMessages(store)
            try #require(messages.count == 2)
            let stored = messages[0].text
            let marker = "… [truncated "
            let markerRange = try #require(stored.range(of: marker))
            let kept = stored[..<markerRange.lowerBound]
            #expect(kept.utf8.count <= LogStore.maxMessageBytes)
            #expect(kept.utf8.count >= LogStore.maxMessageBytes - 1)
            #expect(kept.allSatisfy { $0 == "é" })
            #expect(stored.hasSuffix(" [truncated \(text.utf8.count - kept.utf8.count) bytes]"))
            #expect(messages[1].text == "after")
        }
    }

    @Test func hugeMetadataIsStoredTruncatedAndMarked() async throws {
        try await withTemporaryStore { store, _ in
            let value = String(repeating: "v", count: 3 << 19)
            store.storeMessage(label: "big", level: .info, message: "huge metadata",
                               metadata: ["blob": .string(value), "user": "42"])
            try await store.flush()

            let messages = try await allMessages(store)
            try #require(messages.count == 1)
            let metadata = messages[0].metadata
            #expect(metadata.count == 1)
            guard case .string(let truncated)? = metadata["_truncated"] else {
                Issue.record("expected a _truncated string, got \(metadata.keys.sorted())")
                return
            }
            #expect(truncated.hasPrefix(#"{"blob":"vvvv"#))
            #expect(truncated.contains("… [truncated "))
            #expect(truncated.utf8.count < LogStore.maxMetadataBytes + 64)
            // Still a JSON object for SQL tools.
            let key = try await store.read { db in
                try db.rows("SELECT json_type(metadata, '$._truncated') AS type FROM messages")
            }
            #expect(key.first?["type"] == .text("text"))
        }
    }

    @Test func aRefusedBindFailsTheCommitNamingTheParameter() async throws {
        var configuration = LogStore.Configuration()
        // Retries back off from the save interval: short, so the event is set aside in about a
        // second.
        configuration.saveInterval = .milliseconds(50)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            store.storeMessage(label: "bind", level: .info, message: "before")
            try await store.flush()

            // Metadata (parameter 6, a nullable column) longer than the connection accepts:
            // SQLite refuses the bind with SQLITE_TOOBIG and would leave the parameter NULL.
            try await store.core.write { writer in _ = writer.connection.setLengthLimit(50_000) }
            store.storeMessage(label: "bind", level: .info, message: "with metadata",
                               metadata: ["payload": .string(String(repeating: "m", count: 100_000))])
            let error = await #expect(throws: LogStoreError.self) { try await store.flush() }
            guard let error, error.kind == .writeFailed, let cause = error.writeFailedCause?.databaseError else {
                Issue.record("expected writeFailed(DatabaseError), got \(String(describing: error))")
                return
            }
            #expect(cause.isTooBig)
            #expect(cause.message.contains("parameter 6"))
            #expect(cause.sql?.contains("INSERT INTO messages") == true)

            // Failing on its own every time, the event is set aside and counted; the rest of the
            // store goes on.
            let deadline = ContinuousClock.now + .seconds(TimeScale.scaled(10))
            while try await store.info().rejectedEventCount == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await store.info().rejectedEventCount == 1)
            store.storeMessage(label: "bind", level: .info, message: "after")
            try await store.flush()
            #expect(try await allMessages(store).map(\.text) == ["before", "after"])
        }
    }
}
