import Foundation
@testable import LogStore
import Testing

/// The errors of the library's own layers as the store reports them keep their cause: a zlib
/// failure is an `unexpected` error whose underlying error is zlib's, not only its text.
@Suite("Error causes")
struct ErrorCauseTests {
    struct Foreign: Error, CustomStringConvertible {
        var description: String { "went wrong" }
    }

    @Test func zlibsErrorIsKeptAndReadsAsBefore() {
        let error = LogStoreError(ZlibError.truncatedData)
        #expect(error.kind == .unexpected)
        #expect(error.underlyingError as? ZlibError == .truncatedData)
        #expect(error.description == "Unexpected failure (please report it): zlib failed: \(ZlibError.truncatedData)")
    }

    @Test func anyOtherErrorIsKeptUnderItsTypesName() {
        let error = LogStoreError(Foreign())
        #expect(error.kind == .unexpected)
        #expect(error.underlyingError is Foreign)
        #expect(error.description == "Unexpected failure (please report it): Foreign: went wrong")
    }

    @Test func sqlitesErrorIsTheDatabaseKind() {
        let sqlite = DatabaseError(message: "disk I/O error", sql: nil)
        let error = LogStoreError(sqlite)
        #expect(error.kind == .database)
        #expect(error.databaseError == sqlite)
        #expect(error.description == sqlite.description)
        #expect(LogStoreError.writeFailed(error).databaseError == sqlite)
    }

    @Test func keepingACauseLeavesTheTextAsItIs() {
        let url = URL(fileURLWithPath: "/tmp/x.logstore")
        let invalid = LogStoreError.storeInvalid(url, reason: "damaged (went wrong)").keeping(cause: Foreign())
        #expect(invalid.underlyingError is Foreign)
        #expect(invalid.description == "Not a valid store at /tmp/x.logstore: damaged (went wrong)")
        let closed = LogStoreError.closed.keeping(cause: Foreign())
        #expect(closed.underlyingError == nil && closed.description == "The store is closed")
    }
}
