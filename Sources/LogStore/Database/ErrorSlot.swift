import Synchronization

/// Keeps the first error of work that cannot throw where it runs (a closure handed to another
/// thread), for the caller to throw once that work is done.
final class ErrorSlot: Sendable {
    private let stored = Mutex<DatabaseError?>(nil)

    /// Runs `body`, keeping its error when it is the first.
    func capture(_ body: () throws(DatabaseError) -> Void) {
        do {
            try body()
        } catch {
            stored.withLock { if $0 == nil { $0 = error } }
        }
    }

    /// The first captured error, if any.
    var error: DatabaseError? { stored.withLock { $0 } }
}
