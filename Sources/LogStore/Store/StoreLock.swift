import Foundation
import Glibc
import Synchronization

/// An advisory lock on the store directory that tells a writer whether it is the only process
/// using the store: each writing process holds it shared for as long as it is open.
///
/// Cleaning up after a crash (blob files without rows) is only safe when no other process may
/// be between writing a body file and committing its row; the lock answers that without
/// guessing from file ages. It is `flock(2)`, which is independent of SQLite's POSIX locks.
final class StoreLock: Sendable {
    /// The directory's descriptor; -1 once released.
    private let descriptor: Atomic<Int32>

    /// Opens the directory and takes the lock: exclusive if nobody else holds it (then
    /// `isExclusive` is true), shared otherwise.
    init(directory: URL) throws {
        let descriptor: Int32
        switch Files.openDescriptor(directory.path, O_RDONLY | O_DIRECTORY) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw LogStoreError.fileSystem(directory, operation: "open", errno: error.code)
        }
        self.descriptor = Atomic(descriptor)
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
            isExclusive = true
        } else {
            isExclusive = false
            // A blocking `flock` can be interrupted by a signal: SystemCall makes it again.
            if let error = SystemCall.errnoOf({ flock(descriptor, LOCK_SH) }) {
                close(descriptor)
                throw LogStoreError.fileSystem(directory, operation: "lock", errno: error.code)
            }
        }
    }

    /// Whether this process was the only one with the store open when it took the lock.
    let isExclusive: Bool

    /// Lets other processes in: the lock becomes shared.
    func share() {
        let descriptor = descriptor.load(ordering: .acquiring)
        if descriptor >= 0 { _ = flock(descriptor, LOCK_SH) }
    }

    /// Gives the lock up (the store closed); closing the descriptor releases it.
    func release() {
        let descriptor = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if descriptor >= 0 { close(descriptor) }
    }

    deinit {
        release()
    }
}
