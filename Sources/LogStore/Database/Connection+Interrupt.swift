import CSQLite

/// Stops a connection's running statement from another thread (`sqlite3_interrupt`): the
/// statement fails with `SQLITE_INTERRUPT`. A long copy (`VACUUM INTO`, a filtered copy) is how
/// an export notices its cancellation.
///
/// `@unchecked Sendable`: `sqlite3_interrupt` is documented safe to call from any thread while
/// the connection is open; ``ExportProgressReporter`` keeps that true by calling it under its
/// mutex, and only between registering it and unregistering it around the copy.
struct ConnectionInterrupter: @unchecked Sendable {
    fileprivate let handle: OpaquePointer

    func interrupt() {
        sqlite3_interrupt(handle)
    }
}

extension Connection {
    /// What stops this connection's running statement from another thread.
    var interrupter: ConnectionInterrupter { ConnectionInterrupter(handle: handle) }
}
