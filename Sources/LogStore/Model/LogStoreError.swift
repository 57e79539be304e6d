public import Foundation

/// The one error type of the library: every failure a store reports, with what is needed to act
/// on it and, where there is one, the real cause.
///
/// It is a struct, not an enum, so the library can add a kind of failure without breaking a
/// caller's exhaustive `switch`: match on ``kind`` (always with a `default`), read the payload
/// through the accessors (``url``, ``reason``, ``errno``, ``databaseError``, ``underlyingError``,
/// …). Errors compare equal by their ``kind``, whatever their payloads, so a caller (or a test)
/// can match one without unpacking it:
///
/// ```swift
/// do {
///     try await store.flush()
/// } catch LogStoreError.closed {
///     // the store was closed meanwhile
/// } catch let error as LogStoreError {
///     switch error.kind {
///     case .writeFailed:
///         print(error.localizedDescription)   // "Could not commit logged events …: SQLite error 13 …"
///     case .storeInvalid:
///         print(error.url?.path ?? "", error.reason ?? "")
///     default:
///         print(error)
///     }
/// }
/// ```
public struct LogStoreError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError, Encodable {
    /// The failures with their payloads. Internal: a case added here is a new ``Kind`` value and
    /// a new static member, neither of which breaks a caller.
    enum Detail: Sendable {
        case fileDoesntExist(URL)
        /// `cause`: the error the reason was read from (a zlib or decoding failure), if any.
        case storeInvalid(URL, reason: String, cause: (any Error)?)
        case unsupportedVersion(found: LogStore.Version, supported: LogStore.Version)
        case fileAlreadyExists(URL)
        case readonly
        case closed
        case fileSystem(URL, operation: String, errno: Int32)
        /// SQLite's error, a `DatabaseError`: typed `any Error` here because the database layer
        /// sits above this one (`LogStoreError+Database.swift` constructs and reads it).
        case database(any Error)
        indirect case writeFailed(LogStoreError)
        case invalidArgument(String)
        case unexpected(String, cause: (any Error)?)
    }

    /// What failed, with its payload.
    let detail: Detail

    /// An error of `detail`; the public spellings are the static members.
    init(detail: Detail) {
        self.detail = detail
    }

    // MARK: The kinds

    /// The kind of an error, without its payload: what to match on, and what `==` compares.
    ///
    /// A struct with a value per kind rather than an enum, so a kind the library adds later does
    /// not break a `switch error.kind` (which therefore needs a `default`).
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind's name, as ``LogStoreError/encode(to:)`` writes it (`"fileDoesntExist"`).
        public let rawValue: String

        // Private: the library's kinds are the only ones, so a `switch` over them is meaningful.
        private init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// The kind of a ``LogStoreError/fileDoesntExist(_:)`` error.
        public static let fileDoesntExist = Kind("fileDoesntExist")
        /// The kind of a ``LogStoreError/storeInvalid(_:reason:)`` error.
        public static let storeInvalid = Kind("storeInvalid")
        /// The kind of a ``LogStoreError/unsupportedVersion(found:supported:)`` error.
        public static let unsupportedVersion = Kind("unsupportedVersion")
        /// The kind of a ``LogStoreError/fileAlreadyExists(_:)`` error.
        public static let fileAlreadyExists = Kind("fileAlreadyExists")
        /// The kind of a ``LogStoreError/readonly`` error.
        public static let readonly = Kind("readonly")
        /// The kind of a ``LogStoreError/closed`` error.
        public static let closed = Kind("closed")
        /// The kind of a ``LogStoreError/fileSystem(_:operation:errno:)`` error.
        public static let fileSystem = Kind("fileSystem")
        /// The kind of a ``LogStoreError/database(_:)`` error.
        public static let database = Kind("database")
        /// The kind of a ``LogStoreError/writeFailed(_:)`` error.
        public static let writeFailed = Kind("writeFailed")
        /// The kind of a ``LogStoreError/invalidArgument(_:)`` error.
        public static let invalidArgument = Kind("invalidArgument")
        /// The kind of a ``LogStoreError/unexpected(_:)`` error.
        public static let unexpected = Kind("unexpected")

        /// The kind's name (`"fileDoesntExist"`).
        public var description: String { rawValue }
    }

    /// The kind of this error, without its payload.
    public var kind: Kind {
        switch detail {
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

    // MARK: Making one

    /// The store directory (or archive) does not exist and `.create` was not given.
    public static func fileDoesntExist(_ url: URL) -> LogStoreError {
        LogStoreError(detail: .fileDoesntExist(url))
    }

    /// The directory exists but is not a valid store; nothing in it was changed.
    public static func storeInvalid(_ url: URL, reason: String) -> LogStoreError {
        LogStoreError(detail: .storeInvalid(url, reason: reason, cause: nil))
    }

    /// The directory exists but is not a valid store, as `cause` (a zlib or decoding failure)
    /// showed; nothing in it was changed. The reason should name the cause: the text is what
    /// users read, the cause what code can inspect (``underlyingError``).
    public static func storeInvalid(_ url: URL, reason: String, cause: any Error) -> LogStoreError {
        LogStoreError(detail: .storeInvalid(url, reason: reason, cause: cause))
    }

    /// The store was written by a newer version of the library; nothing in it was changed.
    public static func unsupportedVersion(found: LogStore.Version, supported: LogStore.Version) -> LogStoreError {
        LogStoreError(detail: .unsupportedVersion(found: found, supported: supported))
    }

    /// A file is in the way of one the store would write.
    public static func fileAlreadyExists(_ url: URL) -> LogStoreError {
        LogStoreError(detail: .fileAlreadyExists(url))
    }

    /// The store was opened with `.readonly` and the call would write.
    public static let readonly = LogStoreError(detail: .readonly)

    /// The store was closed or destroyed.
    public static let closed = LogStoreError(detail: .closed)

    /// A file system operation failed (permissions, disk full, missing parent directory).
    public static func fileSystem(_ url: URL, operation: String, errno: Int32) -> LogStoreError {
        LogStoreError(detail: .fileSystem(url, operation: operation, errno: errno))
    }

    /// Committing logged events failed. The cause is a ``database(_:)`` error (a full disk is
    /// ``DatabaseError/isFull``) or, for a body file, a ``fileSystem(_:operation:errno:)`` error.
    /// Events the store cannot write now are kept (within the buffer's bounds) and retried; an
    /// event that fails on its own every time is set aside and counted
    /// (``LogStore/Info/rejectedEventCount``).
    public static func writeFailed(_ cause: LogStoreError) -> LogStoreError {
        LogStoreError(detail: .writeFailed(cause))
    }

    /// An argument was out of range (for example a malformed pagination cursor).
    public static func invalidArgument(_ reason: String) -> LogStoreError {
        LogStoreError(detail: .invalidArgument(reason))
    }

    /// Something the library does not expect happened (a bug worth reporting); the text says what.
    public static func unexpected(_ what: String) -> LogStoreError {
        LogStoreError(detail: .unexpected(what, cause: nil))
    }

    /// Something the library does not expect happened (a bug worth reporting): `what` says what
    /// failed and `cause` is the error it met, kept as ``underlyingError`` rather than only as
    /// text (the description reads `what: cause`).
    public static func unexpected(_ what: String, cause: any Error) -> LogStoreError {
        LogStoreError(detail: .unexpected(what, cause: cause))
    }

    /// This ``storeInvalid(_:reason:)`` error with `cause` kept as its ``underlyingError``, for
    /// a site that gets its error from a closure taking only the reason (`invalid: (String) ->
    /// LogStoreError`) and names the cause in that reason already. Any other kind is returned
    /// as it is: its text would change (``unexpected(_:cause:)`` appends its cause).
    func keeping(cause: any Error) -> LogStoreError {
        guard case .storeInvalid(let url, let reason, _) = detail else { return self }
        return LogStoreError(detail: .storeInvalid(url, reason: reason, cause: cause))
    }

    // MARK: Matching

    /// Errors are equal when they are of the same ``kind``: `.closed == .closed`, and any two
    /// ``writeFailed(_:)`` errors, whatever their causes.
    public static func == (lhs: LogStoreError, rhs: LogStoreError) -> Bool {
        lhs.kind == rhs.kind
    }

    /// Whether `value` is a `LogStoreError` of `pattern`'s ``kind``: what makes
    /// `catch LogStoreError.closed` work, where the thrown value is `any Error` and the standard
    /// library's `~=` (for two values of one `Equatable` type) does not apply.
    public static func ~= (pattern: LogStoreError, value: any Error) -> Bool {
        (value as? LogStoreError)?.kind == pattern.kind
    }

    // MARK: The payload

    /// The file or directory the error is about: the payload of ``fileDoesntExist(_:)``,
    /// ``storeInvalid(_:reason:)``, ``fileAlreadyExists(_:)`` and
    /// ``fileSystem(_:operation:errno:)``; `nil` for the other kinds.
    public var url: URL? {
        switch detail {
        case .fileDoesntExist(let url), .storeInvalid(let url, _, _), .fileAlreadyExists(let url),
            .fileSystem(let url, _, _):
            url
        default: nil
        }
    }

    /// Why, in words: the reason of ``storeInvalid(_:reason:)`` and ``invalidArgument(_:)``, what
    /// happened for ``unexpected(_:)``; `nil` for the other kinds.
    public var reason: String? {
        switch detail {
        case .storeInvalid(_, let reason, _), .invalidArgument(let reason), .unexpected(let reason, _): reason
        default: nil
        }
    }

    /// The operation that failed (`"write"`, `"create directory"`) of a
    /// ``fileSystem(_:operation:errno:)`` error; `nil` for the other kinds.
    public var operation: String? {
        if case .fileSystem(_, let operation, _) = detail { operation } else { nil }
    }

    /// The `errno` of a ``fileSystem(_:operation:errno:)`` error (`ENOSPC`); `nil` for the other
    /// kinds.
    public var errno: Int32? {
        if case .fileSystem(_, _, let code) = detail { code } else { nil }
    }

    /// The version the file has, of an ``unsupportedVersion(found:supported:)`` error; `nil` for
    /// the other kinds.
    public var foundVersion: LogStore.Version? {
        if case .unsupportedVersion(let found, _) = detail { found } else { nil }
    }

    /// The newest version this library reads, of an ``unsupportedVersion(found:supported:)``
    /// error; `nil` for the other kinds.
    public var supportedVersion: LogStore.Version? {
        if case .unsupportedVersion(_, let supported) = detail { supported } else { nil }
    }

    /// The store's error a ``writeFailed(_:)`` error wraps (a ``database(_:)`` or
    /// ``fileSystem(_:operation:errno:)`` error, or damage as ``storeInvalid(_:reason:)``); `nil`
    /// for the other kinds.
    public var writeFailedCause: LogStoreError? {
        if case .writeFailed(let cause) = detail { cause } else { nil }
    }

    /// The error behind this one, kept as it was thrown: SQLite's ``DatabaseError`` of a
    /// ``database(_:)`` error, the cause of a ``writeFailed(_:)`` error, the cause given to
    /// ``unexpected(_:cause:)`` or ``storeInvalid(_:reason:cause:)``; `nil` when there is none.
    public var underlyingError: (any Error)? {
        switch detail {
        case .database(let error): error
        case .writeFailed(let cause): cause
        case .storeInvalid(_, _, let cause), .unexpected(_, let cause): cause
        default: nil
        }
    }

    // MARK: The text

    /// What went wrong and where, with the underlying cause.
    public var description: String {
        switch detail {
        case .fileDoesntExist(let url): "No store at \(url.path)"
        case .storeInvalid(let url, let reason, _): "Not a valid store at \(url.path): \(reason)"
        case .unsupportedVersion(let found, let supported):
            "The file has version \(found) (of its store format, schema or archive format); this library supports up to \(supported)"
        case .fileAlreadyExists(let url): "A file already exists at \(url.path)"
        case .readonly: "The store is read-only"
        case .closed: "The store is closed"
        case .fileSystem(let url, let operation, let code):
            "Could not \(operation) \(url.path): \(String(cString: strerror(code)))"
        case .database(let error): String(describing: error)
        case .writeFailed(let cause): "Could not commit logged events: \(cause)"
        case .invalidArgument(let reason): "Invalid argument: \(reason)"
        case .unexpected(let what, nil): "Unexpected failure (please report it): \(what)"
        case .unexpected(let what, let cause?): "Unexpected failure (please report it): \(what): \(cause)"
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
