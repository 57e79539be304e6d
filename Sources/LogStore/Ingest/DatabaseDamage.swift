import Foundation

/// Damage the writer meets: a failure no retry can repair.
enum DatabaseDamage {
    /// The store's error for a commit (or, `inSearchIndex`, an index step) that found the
    /// database damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB`), nil for any other failure. Retrying
    /// cannot repair it: every later attempt would fail alike, each after reading the damaged
    /// pages again.
    static func error(for error: any Error, database path: String, inSearchIndex: Bool) -> LogStoreError? {
        let database = (error as? LogStoreError)?.databaseError ?? error as? DatabaseError
        guard let database, database.isCorrupt else { return nil }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        let (part, consequence) = inSearchIndex
            ? ("its full-text index", "it is no longer kept up to date (logging goes on; searches fail)")
            : ("logs.sqlite", "nothing more is written to it, and what is logged is counted as dropped")
        return .writeFailed(.storeInvalid(
            directory,
            reason: "\(part) is damaged (\(database.message)); \(consequence). Open the store read-only to read "
                + "what it holds, and move it aside to start a new store",
            cause: database))
    }
}
