/// SQLite's errors in the store's error. Here, not in `Model/`: the error type sits below the
/// database layer and keeps a ``DatabaseError`` as `any Error`; this layer names it.
extension LogStoreError {
    /// SQLite reported an error.
    public static func database(_ error: DatabaseError) -> LogStoreError {
        LogStoreError(detail: .database(error))
    }

    /// SQLite's error behind this one, if any: the payload of ``database(_:)``, or the cause of
    /// ``writeFailed(_:)``.
    public var databaseError: DatabaseError? {
        switch detail {
        case .database(let error): error as? DatabaseError
        case .writeFailed(let cause): cause.databaseError
        default: nil
        }
    }
}
