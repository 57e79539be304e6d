import Foundation
import Glibc

/// The file browser's one way into libc: every call that reports failure as -1 and `errno` goes
/// through ``valueOrErrno(retryingOnInterrupt:_:)``, so `errno` is read right after the call and
/// an interrupted call is made again in one place (LogStore's own `SystemCall` is internal to
/// that module).
enum FileSystemCall {
    /// The value of `call`, or the `errno` of its failure (-1). `EINTR` makes the call again
    /// unless `retryingOnInterrupt` is false: `close(2)` must never be retried on Linux (the
    /// descriptor is gone even when it reports `EINTR`, and may already be reused).
    @inline(__always)
    static func valueOrErrno<Value: SignedInteger & FixedWidthInteger>(
        retryingOnInterrupt: Bool = true, _ call: () -> Value
    ) -> Result<Value, Errno> {
        while true {
            let value = call()
            guard value == -1 else { return .success(value) }
            let code = Glibc.errno
            if code == EINTR && retryingOnInterrupt { continue }
            return .failure(Errno(code: code))
        }
    }

    /// An `errno` value.
    struct Errno: Error, Equatable, Sendable {
        let code: Int32
    }

    /// `strerror(code)`, for messages.
    static func message(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// The error a failed call on `path` becomes: the causes a developer can act on get their
    /// own case, the rest keep their `errno`.
    static func accessError(_ error: Errno, path: String, operation: String) -> FileAccessError {
        switch error.code {
        case ENOENT: .notFound(path)
        case ENOTDIR: .notADirectory(path)
        case EACCES, EPERM: .permission(path)
        case ENAMETOOLONG: .pathTooLong(path.utf8.count)
        default: .system(path, operation: operation, errno: error.code)
        }
    }

    /// `fstatat(directory, name, AT_SYMLINK_NOFOLLOW)`: what `name` itself is, a link not followed.
    static func statNoFollow(_ directory: Int32, _ name: String) -> Result<Glibc.stat, Errno> {
        var info = Glibc.stat()
        return valueOrErrno { fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) }.map { _ in info }
    }

    /// `fstat(descriptor)`: what an open descriptor is, whatever its name now names.
    static func status(of descriptor: Int32) -> Result<Glibc.stat, Errno> {
        var info = Glibc.stat()
        return valueOrErrno { fstat(descriptor, &info) }.map { _ in info }
    }

    /// `openat(directory, name, flags)`; the caller includes `O_NOFOLLOW` and `O_CLOEXEC`.
    static func open(_ directory: Int32, _ name: String, _ flags: Int32) -> Result<Int32, Errno> {
        valueOrErrno { openat(directory, name, flags) }
    }

    /// The target of the symbolic link `name` in `directory` (`readlinkat`), as bytes: a target
    /// need not be UTF-8. Fails with `ENAMETOOLONG` past `PATH_MAX`.
    static func readLink(_ directory: Int32, _ name: String) -> Result<[UInt8], Errno> {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let result = buffer.withUnsafeMutableBufferPointer { pointer in
            valueOrErrno {
                pointer.baseAddress.map { readlinkat(directory, name, UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self), pointer.count) } ?? -1
            }
        }
        return result.flatMap { length in
            // A full buffer may be a cut-off target: refuse rather than follow part of it.
            guard length < buffer.count else { return .failure(Errno(code: ENAMETOOLONG)) }
            return .success(Array(buffer[..<length]))
        }
    }

    /// Closes `descriptor`, once: see ``valueOrErrno(retryingOnInterrupt:_:)`` for why a failed
    /// close is not retried. Its failure is not reported: the descriptor is gone either way, and
    /// the browser only reads (no written data can be lost).
    static func close(_ descriptor: Int32) {
        _ = valueOrErrno(retryingOnInterrupt: false) { Glibc.close(descriptor) }
    }
}

/// What a `stat` says, in the terms the browser uses.
struct FileStatus: Sendable, Equatable {
    /// The kinds of object a name can be.
    enum Kind: Sendable, Equatable {
        /// A directory.
        case directory
        /// A regular file.
        case regularFile
        /// A symbolic link (only from `fstatat` with `AT_SYMLINK_NOFOLLOW`).
        case symbolicLink
        /// A FIFO, socket or device.
        case other
    }

    /// What it is.
    var kind: Kind
    /// Size in bytes (of the link itself for a link).
    var size: Int64
    /// Last modification.
    var modified: Date
    /// The device and inode: which object it is, whatever its name.
    var identity: FileIdentity

    init(_ info: Glibc.stat) {
        switch info.st_mode & S_IFMT {
        case S_IFDIR: kind = .directory
        case S_IFREG: kind = .regularFile
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        size = Int64(info.st_size)
        modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}

/// A file system object's device and inode numbers: equal for two descriptors or names exactly
/// when they are the same object (a hard link included).
struct FileIdentity: Sendable, Hashable {
    /// `st_dev`.
    var device: UInt64
    /// `st_ino`.
    var inode: UInt64
}
