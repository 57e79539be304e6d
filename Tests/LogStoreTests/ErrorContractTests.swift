import Foundation
import LogStore
import Testing

/// The error contract: one public type, carrying the real cause, matchable by kind, readable.
@Suite("Error contract")
struct ErrorContractTests {
    @Test func aFailingQueryThrowsTheStoresErrorWithSQLitesCause() async throws {
        try await withTemporaryStore { store, _ in
            let error = await #expect(throws: LogStoreError.self) {
                try await store.read { db in try db.rows("SELECT * FROM no_such_table") }
            }
            #expect(error?.kind == .database)
            #expect(error?.databaseError?.message.contains("no_such_table") == true)
        }
    }

    @Test func errorsMatchByKindWhateverTheirPayloads() async throws {
        let url = URL(fileURLWithPath: "/nowhere")
        #expect(LogStoreError.fileSystem(url, operation: "read", errno: EIO) == .fileSystem(url, operation: "write", errno: ENOSPC))
        #expect(LogStoreError.closed != .readonly)
        try await withTemporaryStore { store, _ in
            try await store.close()
            await #expect(throws: LogStoreError.closed) { try await store.flush() }
            do {
                _ = try await store.info()
                Issue.record("info() after close() returned")
            } catch LogStoreError.closed {
                // The pattern a caller writes.
            }
        }
    }

    @Test func theLocalizedDescriptionIsTheDescription() throws {
        let error: any Error = LogStoreError.storeInvalid(URL(fileURLWithPath: "/tmp/x.logstore"), reason: "no manifest")
        #expect(error.localizedDescription == "Not a valid store at /tmp/x.logstore: no manifest")
        let cause = LogStoreError.writeFailed(.fileSystem(URL(fileURLWithPath: "/tmp/b"), operation: "write", errno: ENOSPC))
        #expect(cause.localizedDescription.contains("No space left on device"))
    }
}
