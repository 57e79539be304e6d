public import Foundation

/// The one error type of the library: every failure a store reports, each case carrying what is
/// needed to act on it and, where there is one, the real cause.
///
/// Errors compare equal by their ``kind``, whatever their payloads, so a caller (or a test) can
/// match one without unpacking it:
///
/// ```swift
/// do {
///     try await store.flush()
/// } catch LogStoreError.closed {
///     // the store was closed meanwhile
/// } catch let error as LogStoreError where error.kind == .writeFailed {
///     print(error.localizedDescription)   // "Could not commit logged events …: SQLite error 13 …"
/// }
/// ```
public enum LogStoreError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError, Encodable {
    /// The store directory (or archive) does not exist and `.create` was not given.
    case fileDoesntExist(URL)
    /// The directory exists but is not a valid store; nothing in it was changed.
    case storeInvalid(URL, reason: String)
    /// The store was written by a newer version of the library; nothing in it was changed.
    case unsupportedVersion(found: LogStore.Version, supported: LogStore.Version)
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
    /// Committing logged events failed. The cause is a ``database(_:)`` error (a full disk is
    /// ``DatabaseError/isFull``) or, for a body file, a ``fileSystem(_:operation:errno:)`` error.
    /// Events the store cannot write now are kept (within the buffer's bounds) and retried; an
    /// event that fails on its own every time is set aside and counted
    /// (``LogStore/Info/rejectedEventCount``).
    indirect case writeFailed(LogStoreError)
    /// An argument was out of range (for example a malformed pagination cursor).
    case invalidArgument(String)
    /// Something the library does not expect happened (a bug worth reporting); the text says what.
    case unexpected(String)

    /// The case of an error without its payload: what `==` compares.
    public enum Kind: String, Sendable, Hashable, CustomStringConvertible {
        /// The kind of a ``LogStoreError/fileDoesntExist(_:)`` error.
        case fileDoesntExist
        /// The kind of a ``LogStoreError/storeInvalid(_:reason:)`` error.
        case storeInvalid
        /// The kind of a ``LogStoreError/unsupportedVersion(found:supported:)`` error.
        case unsupportedVersion
        /// The kind of a ``LogStoreError/fileAlreadyExists(_:)`` error.
        case fileAlreadyExists
        /// The kind of a ``LogStoreError/readonly`` error.
        case readonly
        /// The kind of a ``LogStoreError/closed`` error.
        case closed
        /// The kind of a ``LogStoreError/fileSystem(_:operation:errno:)`` error.
        case fileSystem
        /// The kind of a ``LogStoreError/database(_:)`` error.
        case database
        /// The kind of a ``LogStoreError/writeFailed(_:)`` error.
        case writeFailed
        /// The kind of a ``LogStoreError/invalidArgument(_:)`` error.
        case invalidArgument
        /// The kind of a ``LogStoreError/unexpected(_:)`` error.
        case unexpected

        /// The case's name (`"fileDoesntExist"`).
        public var description: String { rawValue }
    }

    /// The case of this error, without its payload.
    public var kind: Kind {
        switch self {
        case .fileDoesntExist: .fileDoesntExist
        case .storeInvalid: .storeInvalid
        case .unsupportedVersion: .unsupportedVersion
        case .fileAlreadyExists: .fileAlreadyExists
        case .readonly: .readonly
        case .closed: .closed
        case .fileSystem: .fileSystem
        case .database: .database
        case .writeFailed: .writeFailed
        case .invalidArgument: .invalidArgument
        case .unexpected: .unexpected
        }
    }

    /// Errors are equal when they are of the same ``kind``: `.closed == .closed`, and any two
    /// ``writeFailed(_:)`` errors, whatever their causes.
    public static func == (lhs: LogStoreError, rhs: LogStoreError) -> Bool {
        lhs.kind == rhs.kind
    }

    /// SQLite's error behind this one, if any: the payload of ``database(_:)``, or the cause of
    /// ``writeFailed(_:)``.
    public var databaseError: DatabaseError? {
        switch self {
        case .database(let error): error
        case .writeFailed(let cause): cause.databaseError
        default: nil
        }
    }

    /// What went wrong and where, with the underlying cause.
    public var description: String {
        switch self {
        case .fileDoesntExist(let url): "No store at \(url.path)"
        case .storeInvalid(let url, let reason): "Not a valid store at \(url.path): \(reason)"
        case .unsupportedVersion(let found, let supported):
            "The file has version \(found) (of its store format, schema or archive format); this library supports up to \(supported)"
        case .fileAlreadyExists(let url): "A file already exists at \(url.path)"
        case .readonly: "The store is read-only"
        case .closed: "The store is closed"
        case .fileSystem(let url, let operation, let code):
            "Could not \(operation) \(url.path): \(String(cString: strerror(code)))"
        case .database(let error): error.description
        case .writeFailed(let cause): "Could not commit logged events: \(cause)"
        case .invalidArgument(let reason): "Invalid argument: \(reason)"
        case .unexpected(let what): "Unexpected failure (please report it): \(what)"
        }
    }

    /// The same text as ``description``, so `localizedDescription` reads well.
    public var errorDescription: String? { description }

    private enum CodingKeys: String, CodingKey {
        case kind, description
    }

    /// Encodes the error as its ``kind`` and ``description`` (as `logstore info --json` shows it).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind.rawValue, forKey: .kind)
        try container.encode(description, forKey: .description)
    }
}
