public import Foundation

extension LogStore {
    /// The errors a store reports. Every case carries what is needed to act on it.
    public enum Error: Swift.Error, Sendable, CustomStringConvertible {
        /// The store directory (or archive) does not exist and `.create` was not given.
        case fileDoesntExist(URL)
        /// The directory exists but is not a valid store; nothing in it was changed.
        case storeInvalid(URL, reason: String)
        /// The store was written by a newer version of the library; nothing in it was changed.
        case unsupportedVersion(found: Version, supported: Version)
        /// A file is in the way of one the store would write.
        case fileAlreadyExists(URL)
        /// The store was opened with `.readonly` and the call would write.
        case readonly
        /// The store was closed or destroyed.
        case closed
        /// A file system operation failed (permissions, disk full, missing parent directory).
        case fileSystem(URL, operation: String, errno: Int32)
        /// SQLite reported an error.
        case database(DatabaseError)
        /// Committing logged events failed; they are kept and retried, and logging goes on. The
        /// cause is a ``DatabaseError`` (a full disk is `isFull`) or, for a body file, a
        /// ``fileSystem(_:operation:errno:)`` error.
        case writeFailed(any Swift.Error & Sendable)
        /// An argument was out of range (for example a malformed pagination cursor).
        case invalidArgument(String)

        public var description: String {
            switch self {
            case .fileDoesntExist(let url): "No store at \(url.path)"
            case .storeInvalid(let url, let reason): "Not a valid store at \(url.path): \(reason)"
            case .unsupportedVersion(let found, let supported):
                "The store has version \(found); this library supports up to \(supported)"
            case .fileAlreadyExists(let url): "A file already exists at \(url.path)"
            case .readonly: "The store is read-only"
            case .closed: "The store is closed"
            case .fileSystem(let url, let operation, let code):
                "Could not \(operation) \(url.path): \(String(cString: strerror(code)))"
            case .database(let error): error.description
            case .writeFailed(let error): "Could not commit logged events (they will be retried): \(error)"
            case .invalidArgument(let reason): "Invalid argument: \(reason)"
            }
        }
    }
}
