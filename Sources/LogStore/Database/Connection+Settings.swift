/// Per-connection settings the store changes while a connection is open, each one pragma, so
/// the layers above never spell pragmas themselves.
extension Connection {
    /// How long a connection waits for another process's lock before failing with SQLITE_BUSY.
    static let busyTimeoutMilliseconds = 5_000

    /// Sets how long the connection waits for another connection's lock (`PRAGMA busy_timeout`);
    /// 0 makes a busy lock fail at once.
    func setBusyTimeout(milliseconds: Int = Connection.busyTimeoutMilliseconds) throws(DatabaseError) {
        try execute("PRAGMA busy_timeout = \(milliseconds)")
    }

    /// Makes the connection refuse (or accept again) every change to the database
    /// (`PRAGMA query_only`): a read that borrows the writer's connection must not write through it.
    func setQueryOnly(_ enabled: Bool) throws(DatabaseError) {
        try execute("PRAGMA query_only = \(enabled ? "ON" : "OFF")")
    }
}
