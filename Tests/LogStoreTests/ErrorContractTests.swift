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
            #expect(error?.underlyingError is DatabaseError)
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
            do {
                _ = try await store.info()
            } catch LogStoreError.readonly {
                Issue.record("a closed store's error matched readonly")
            } catch LogStoreError.closed {
                // Matched by kind, not by type alone.
            }
        }
    }

    @Test func theLocalizedDescriptionIsTheDescription() throws {
        let error: any Error = LogStoreError.storeInvalid(URL(fileURLWithPath: "/tmp/x.logstore"), reason: "no manifest")
        #expect(error.localizedDescription == "Not a valid store at /tmp/x.logstore: no manifest")
        let cause = LogStoreError.writeFailed(.fileSystem(URL(fileURLWithPath: "/tmp/b"), operation: "write", errno: ENOSPC))
        #expect(cause.localizedDescription.contains("No space left on device"))
    }

    /// A cause that is not the library's own, for the errors that keep one.
    struct Cause: Error, CustomStringConvertible {
        var description: String { "the cause" }
    }

    @Test func theAccessorsReadEachKindsPayload() throws {
        let url = URL(fileURLWithPath: "/tmp/x.logstore")
        let invalid = LogStoreError.storeInvalid(url, reason: "no manifest")
        #expect(invalid.kind == .storeInvalid && invalid.url == url && invalid.reason == "no manifest")
        #expect(invalid.underlyingError == nil && invalid.errno == nil && invalid.writeFailedCause == nil)
        let keeping = LogStoreError.storeInvalid(url, reason: "damaged (the cause)", cause: Cause())
        #expect(keeping.underlyingError is Cause)
        #expect(keeping.description == "Not a valid store at /tmp/x.logstore: damaged (the cause)")

        let file = LogStoreError.fileSystem(url, operation: "write", errno: ENOSPC)
        #expect(file.url == url && file.operation == "write" && file.errno == ENOSPC && file.reason == nil)
        #expect(LogStoreError.fileDoesntExist(url).url == url)
        #expect(LogStoreError.fileAlreadyExists(url).url == url)
        #expect(LogStoreError.invalidArgument("bad cursor").reason == "bad cursor")
        #expect(LogStoreError.closed.url == nil && LogStoreError.closed.underlyingError == nil)

        let found = try #require(LogStore.Version("99.0.0"))
        let version = LogStoreError.unsupportedVersion(found: found, supported: .store)
        #expect(version.foundVersion == found && version.supportedVersion == .store)

        let failed = LogStoreError.writeFailed(file)
        #expect(failed.writeFailedCause?.errno == ENOSPC)
        #expect((failed.underlyingError as? LogStoreError)?.kind == .fileSystem)
        #expect(failed.databaseError == nil)
    }

    @Test func anUnexpectedErrorKeepsItsCauseAndReadsAsBefore() {
        let plain = LogStoreError.unexpected("a chunk was not compressed")
        #expect(plain.description == "Unexpected failure (please report it): a chunk was not compressed")
        #expect(plain.reason == "a chunk was not compressed" && plain.underlyingError == nil)
        let caused = LogStoreError.unexpected("zlib", cause: Cause())
        #expect(caused.description == "Unexpected failure (please report it): zlib: the cause")
        #expect(caused.underlyingError is Cause)
        #expect(caused == plain)
    }

    @Test func theKindsAreMatchedWithADefault() {
        // The pattern a caller writes: a kind added later falls into `default`.
        func name(_ error: LogStoreError) -> String {
            switch error.kind {
            case .closed: "closed"
            case .writeFailed: "write failed: \(error.writeFailedCause?.kind.description ?? "?")"
            default: "other (\(error.kind))"
            }
        }
        #expect(name(.closed) == "closed")
        #expect(name(.writeFailed(.readonly)) == "write failed: readonly")
        #expect(name(.invalidArgument("x")) == "other (invalidArgument)")
        #expect(LogStoreError.Kind.fileDoesntExist.rawValue == "fileDoesntExist")
        #expect(Set([LogStoreError.closed.kind, LogStoreError.closed.kind, LogStoreError.readonly.kind]).count == 2)
    }

    @Test func anErrorEncodesAsItsKindAndDescription() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let error = LogStoreError.writeFailed(.fileSystem(URL(fileURLWithPath: "/tmp/b"), operation: "write", errno: ENOSPC))
        let json = String(decoding: try encoder.encode(error), as: UTF8.self)
        #expect(json == #"{"description":"Could not commit logged events: Could not write /tmp/b: No space left on device","kind":"writeFailed"}"#)
    }

    @Test func anInvalidManifestKeepsTheDecodingError() async throws {
        try await withTemporaryStoreURL { url in
            try await LogStore(storeURL: url, options: [.create]).close()
            try Data("not json at all".utf8).write(to: url.appendingPathComponent("manifest.json"))
            let error = await #expect(throws: LogStoreError.self) { try await LogStore(storeURL: url) }
            #expect(error?.kind == .storeInvalid)
            #expect(error?.reason?.hasPrefix("manifest.json is not a valid manifest (") == true)
            #expect(error?.underlyingError is DecodingError, "\(String(describing: error?.underlyingError))")
        }
    }
}
