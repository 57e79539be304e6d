/// The errors of the library's own layers as the store reports them: the store knows every
/// layer, the error type below them knows none.
extension LogStoreError {
    /// Any error thrown below the store's API, as the store reports it: its own errors as they
    /// are, SQLite's as ``database(_:)``, anything else as ``unexpected(_:cause:)`` naming its
    /// type and keeping it.
    init(_ error: any Error) {
        self = LogStoreError(known: error) ?? .unexpected("\(type(of: error))", cause: error)
    }

    /// An error of the library's own layers as the store reports it (a closed reader pool is
    /// `closed`); `nil` for any other error.
    init?(known error: any Error) {
        switch error {
        case let error as LogStoreError: self = error
        case let error as DatabaseError: self = .database(error)
        case is ReaderPool.Closed: self = .closed
        case let error as ZlibError: self = .unexpected("zlib failed", cause: error)
        default: return nil
        }
    }
}
