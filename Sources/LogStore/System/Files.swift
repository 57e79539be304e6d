import Foundation
import Glibc

/// Operations on single files and directories by path, each through ``SystemCall`` (or
/// Foundation) with its failure as a ``LogStoreError/fileSystem(_:operation:errno:)``. The blob
/// store and the store's directory both build on them: the layout of a store's directory is
/// ``StoreFiles``'s concern, not this one's.
enum Files {
    /// Opens `path` with `flags` (and `O_CLOEXEC`): the one way the library opens a file outside
    /// SQLite. A database this process's SQLite connections have open (or its WAL or shared
    /// memory) is refused with `EBUSY`: closing the descriptor would drop every POSIX lock the
    /// process holds on the file, SQLite's included (``HeldDatabaseFiles``). A new file
    /// (`O_CREAT | O_EXCL`) cannot be one, and is not looked up.
    static func openDescriptor(_ path: String, _ flags: Int32, mode: mode_t = 0o600) -> Result<Int32, Errno> {
        let createsNew = flags & (O_CREAT | O_EXCL) == O_CREAT | O_EXCL
        if !createsNew, HeldDatabaseFiles.contains(path: path) { return .failure(Errno(code: EBUSY)) }
        return SystemCall.valueOrErrno { open(path, flags | O_CLOEXEC, mode) }
    }

    /// The whole content of a small file (a manifest), read through ``openDescriptor(_:_:mode:)``.
    static func contents(of url: URL) throws -> Data {
        let descriptor: Int32
        switch openDescriptor(url.path, O_RDONLY) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw LogStoreError.fileSystem(url, operation: "open", errno: error.code)
        }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count: Int
            switch SystemCall.valueOrErrno({ read(descriptor, &buffer, buffer.count) }) {
            case .success(let read): count = read
            case .failure(let error): throw LogStoreError.fileSystem(url, operation: "read", errno: error.code)
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
        }
    }

    /// The bytes an unprivileged process may still write on the volume holding `path`
    /// (`statvfs`'s available blocks); `nil` when the volume cannot be asked.
    static func availableBytes(onVolumeOf path: String) -> Int64? {
        var volume = statvfs()
        guard statvfs(path, &volume) == 0 else { return nil }
        return Int64(volume.f_bavail) * Int64(volume.f_frsize)
    }

    /// Creates `url` as an empty file with mode 0600 unless something has the name, so SQLite
    /// (and its WAL and shared memory files, which copy the database file's mode) never create
    /// it world-readable.
    ///
    /// An existing file is never opened: if another connection of this process has it open,
    /// closing a descriptor of it would drop that connection's locks (``HeldDatabaseFiles``).
    /// A missing one is created under a temporary name and linked into place, so no descriptor
    /// of the name itself is opened or closed here either, and nothing is ever renamed over a
    /// file another open created meanwhile.
    static func createOwnerOnlyFileIfMissing(_ url: URL) throws {
        guard !exists(url) else { return }
        let temporary = try writeSyncedTemporary(Data(), beside: url)
        defer { unlink(temporary.path) }
        guard let error = SystemCall.errnoOf({ link(temporary.path, url.path) }) else { return }
        switch error.code {
        case EEXIST:
            return  // another open created it first
        case ENOENT where exists(url):
            return  // that open's cleanup took the temporary file, after creating the name
        case EPERM, EOPNOTSUPP, ENOTSUP:
            // No hard links here (vfat, some network file systems): created in place, new or
            // not at all. The descriptor is of a file this call created, which no connection had.
            switch openDescriptor(url.path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW) {
            case .success(let descriptor): close(descriptor)
            case .failure(let failure) where failure.code == EEXIST: return
            case .failure(let failure): throw LogStoreError.fileSystem(url, operation: "create", errno: failure.code)
            }
        default:
            throw LogStoreError.fileSystem(url, operation: "create", errno: error.code)
        }
    }

    /// Creates a new empty file with mode 0600, failing if anything (a file, a symbolic link) has
    /// the name: for temporary files beside a user's target, where another user may have planted one.
    static func createNewOwnerOnlyFile(_ url: URL) throws {
        switch openDescriptor(url.path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW) {
        case .success(let descriptor): close(descriptor)
        case .failure(let error): throw LogStoreError.fileSystem(url, operation: "create", errno: error.code)
        }
    }

    /// Writes `data` to a temporary file in the same directory, syncs it and renames it over
    /// `url`, so readers see the old or the new content, never a part.
    static func writeAtomically(_ data: Data, to url: URL) throws {
        let temporary = try writeSyncedTemporary(data, beside: url)
        if let failure = SystemCall.errnoOf({ rename(temporary.path, url.path) }) {
            unlink(temporary.path)
            throw LogStoreError.fileSystem(url, operation: "write", errno: failure.code)
        }
    }

    /// Writes `data` to `url` only if nothing has that name, whole or not at all: a temporary
    /// file, synced, then hard-linked to the name (`link(2)` never replaces). Returns false when
    /// the name was taken (by another process racing to create it), leaving that file alone.
    ///
    /// Another process opening the same new store may take the lock first and clear what it
    /// takes for a crashed write's temporary files, this one's included: then the temporary is
    /// written again (a few times at most).
    static func writeNew(_ data: Data, to url: URL) throws -> Bool {
        var attempts = 0
        while true {
            attempts += 1
            let temporary = try writeSyncedTemporary(data, beside: url)
            defer { unlink(temporary.path) }
            guard let error = SystemCall.errnoOf({ link(temporary.path, url.path) }) else { return true }
            if error.code == ENOENT && attempts < 4 && !exists(temporary) { continue }
            return try finishWriteNew(after: error, temporary: temporary, to: url)
        }
    }

    private static func finishWriteNew(after error: Errno, temporary: URL, to url: URL) throws -> Bool {
        if error.code == EEXIST { return false }
        guard [EPERM, EOPNOTSUPP, ENOTSUP].contains(error.code) else {
            throw LogStoreError.fileSystem(url, operation: "create", errno: error.code)
        }
        // No hard links here (vfat, some network file systems): a check, then a rename.
        if exists(url) { return false }
        if let error = SystemCall.errnoOf({ rename(temporary.path, url.path) }) {
            throw LogStoreError.fileSystem(url, operation: "create", errno: error.code)
        }
        return true
    }

    private static let atomicWriteSuffix = ".tmp"

    /// Whether `name` is a temporary file of an atomic write of `fileName` (`.<fileName>.<UUID>.tmp`).
    static func isAtomicWriteTemporary(_ name: String, of fileName: String) -> Bool {
        let prefix = ".\(fileName)."
        guard name.hasPrefix(prefix), name.hasSuffix(atomicWriteSuffix) else { return false }
        return UUID(uuidString: String(name.dropFirst(prefix.count).dropLast(atomicWriteSuffix.count))) != nil
    }

    /// `data` in a new owner-only file `.<name>.<UUID>.tmp` beside `url`, synced; removed again
    /// when writing fails.
    private static func writeSyncedTemporary(_ data: Data, beside url: URL) throws -> URL {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)\(atomicWriteSuffix)")
        let descriptor: Int32
        switch openDescriptor(temporary.path, O_CREAT | O_EXCL | O_WRONLY) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw LogStoreError.fileSystem(temporary, operation: "create", errno: error.code)
        }
        var failure = data.withUnsafeBytes { SystemCall.writeAll($0, to: descriptor) }
        if failure == nil { failure = SystemCall.errnoOf { fsync(descriptor) } }
        close(descriptor)
        if let failure {
            unlink(temporary.path)
            throw LogStoreError.fileSystem(url, operation: "write", errno: failure.code)
        }
        return temporary
    }

    /// Removes the temporary files of ``writeAtomically(_:to:)`` calls for `url` that a killed
    /// process left (`.<name>.<UUID>.tmp`, this user's regular files only), those older than
    /// `age` seconds (a write in progress is younger); what cannot be removed stays for next time.
    static func removeAbandonedAtomicWrites(of url: URL, olderThan age: TimeInterval) {
        let directory = url.deletingLastPathComponent()
        guard let names = try? directoryEntries(directory) else { return }
        let cutoff = Date().addingTimeInterval(-age)
        for name in names where isAtomicWriteTemporary(name, of: url.lastPathComponent) {
            let path = directory.appendingPathComponent(name).path
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == geteuid(),
                  Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec)) <= cutoff
            else { continue }
            unlink(path)
        }
    }

    /// Why no file can be created in `directory` (an errno), or `nil` when one can. Used only to
    /// explain a failure.
    static func creationError(in directory: URL) -> Int32? {
        let probe = directory.appendingPathComponent(".logstore-probe-\(UUID().uuidString)")
        switch openDescriptor(probe.path, O_CREAT | O_EXCL | O_WRONLY) {
        case .success(let descriptor): close(descriptor)
        case .failure(let error): return error.code
        }
        unlink(probe.path)
        return nil
    }

    /// The bytes a file takes, or 0 when it does not exist.
    static func fileSize(_ url: URL) -> Int64 {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }

    /// The names in `directory` (without `.` and `..`); none when it does not exist.
    static func directoryEntries(_ directory: URL) throws -> [String] {
        let stream: OpaquePointer
        switch SystemCall.valueOrErrno({ opendir(directory.path) }) {
        case .success(let opened): stream = opened
        case .failure(let error) where error.code == ENOENT: return []
        case .failure(let error): throw LogStoreError.fileSystem(directory, operation: "list", errno: error.code)
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: pointer.pointee)) {
                    String(cString: $0)
                }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// A file's modification date, when it exists.
    static func modificationDate(_ url: URL) -> Date? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    /// Whether `url` is an existing directory.
    static func isDirectory(_ url: URL) -> Bool {
        var info = stat()
        return stat(url.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether anything exists at `url`.
    static func exists(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0
    }

    /// The POSIX errno behind a Foundation file error (EIO when it names none).
    static func errno(of error: any Error) -> Int32 {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        {
            return Int32(underlying.code)
        }
        return EIO
    }
}
