import Foundation
import Glibc
import Synchronization

/// Where an export writes: a temporary file beside the target, owner-only, put in place only when
/// complete, so a reader never sees half a file and a failed export leaves nothing behind.
///
/// The target is checked before any work (its directory must exist, it must not) and again at the
/// end: the file is put in place with `link(2)`, which fails if the name was taken meanwhile, so an
/// export never overwrites a file, not even one created while it ran. (On a file system without
/// hard links, a `rename(2)` after a last check does it, with that check's small window.)
///
/// When it `replaces` an existing file, the finished file takes the name with one `rename(2)`,
/// which swaps it in atomically: a reader sees the old file or the new one, never a mix, and a
/// failed export leaves the old file as it was. A directory is never replaced.
///
/// Its temporary files are `.<name>.<token>.logstore-<kind>` (`ExportLeftovers`), and the
/// `partial` one stays locked (`flock`) while the export runs: a killed export drops the lock, so
/// the next export into the same directory removes what it left, and never one still running.
final class ExportDestination: Sendable {
    let target: URL
    let temporary: URL
    private let token: String
    /// The locked descriptor of ``temporary``; -1 once discarded.
    private let lock: Atomic<Int32>
    /// Further temporary files beside the target (an archive's database copy), removed with it.
    private let companions = Mutex<[URL]>([])
    private let isFinished = Atomic<Bool>(false)
    /// Whether an existing file at ``target`` is replaced (``ExportOptions/replacesExistingFile``).
    let replaces: Bool

    /// - Parameter replaces: replace a file already at `target` (never a directory) rather than
    ///   refuse.
    /// - Throws: ``LogStoreError/fileDoesntExist(_:)`` (the directory) when the target's directory is
    ///   missing; ``LogStoreError/fileAlreadyExists(_:)`` when the target exists (with `replaces`,
    ///   only when it is a directory); ``LogStoreError/fileSystem(_:operation:errno:)`` when the
    ///   temporary file cannot be created.
    init(target: URL, replaces: Bool = false) throws {
        let target = target.standardizedFileURL
        let directory = target.deletingLastPathComponent()
        guard Files.isDirectory(directory) else { throw LogStoreError.fileDoesntExist(directory) }
        if replaces {
            guard !Self.isDirectory(target) else { throw LogStoreError.fileAlreadyExists(target) }
        } else {
            guard !Self.nameIsTaken(target) else { throw LogStoreError.fileAlreadyExists(target) }
        }
        ExportLeftovers.removeAbandoned(in: directory)
        self.target = target
        self.replaces = replaces
        let token = ExportLeftovers.makeToken()
        self.token = token
        // Created and locked under a name the cleanup leaves alone while it is new, then renamed:
        // the partial file never exists unlocked while its export runs.
        var temporary = ExportLeftovers.name(beside: target, token: token, kind: ExportLeftovers.partial)
        let unlocked = ExportLeftovers.name(beside: target, token: token, kind: ExportLeftovers.new)
        let descriptor: Int32
        switch Files.openDescriptor(unlocked.path, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw LogStoreError.fileSystem(unlocked, operation: "create", errno: error.code)
        }
        if let error = SystemCall.errnoOf({ flock(descriptor, LOCK_EX | LOCK_NB) }) {
            guard ExportLeftovers.lockingUnsupported.contains(error.code) else {
                unlink(unlocked.path)
                close(descriptor)
                throw LogStoreError.fileSystem(temporary, operation: "lock", errno: error.code)
            }
            // A file system without locks (NFS without lockd, some FUSE mounts): the export
            // goes on under a name the cleanup removes only after a day.
            temporary = ExportLeftovers.name(beside: target, token: token, kind: ExportLeftovers.unlocked)
        }
        if let error = SystemCall.errnoOf({ rename(unlocked.path, temporary.path) }) {
            unlink(unlocked.path)
            close(descriptor)
            throw LogStoreError.fileSystem(temporary, operation: "create", errno: error.code)
        }
        self.temporary = temporary
        self.lock = Atomic(descriptor)
    }

    deinit {
        discard()
    }

    /// A new, empty, owner-only temporary file beside the target, removed when the export ends.
    func makeCompanionFile(_ suffix: String) throws -> URL {
        let url = ExportLeftovers.name(beside: target, token: token, kind: suffix)
        try Files.createNewOwnerOnlyFile(url)
        companions.withLock { $0.append(url) }
        return url
    }

    /// Runs `body` with a buffered writer over the temporary file (truncated), and flushes what
    /// it wrote.
    func withOutput<T>(_ body: (ExportOutput) throws -> T) throws -> T {
        let descriptor: Int32
        switch Files.openDescriptor(temporary.path, O_WRONLY | O_TRUNC | O_NOFOLLOW) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw LogStoreError.fileSystem(temporary, operation: "open", errno: error.code)
        }
        defer { close(descriptor) }
        let output = ExportOutput(descriptor: descriptor, url: temporary)
        let result = try body(output)
        try output.flush()
        return result
    }

    /// Syncs the finished temporary file and gives it the target's name.
    ///
    /// - Throws: ``LogStoreError/fileAlreadyExists(_:)`` when the name was taken while the export
    ///   ran (the temporary file is removed); ``LogStoreError/fileSystem(_:operation:errno:)``.
    func commit() throws {
        try sync(temporary)
        // Done with before the file takes its name: past that point the partial file (and its
        // lock) may be gone (rename), and companions must not outlive it.
        removeCompanions()
        if replaces {
            // rename(2) replaces the old file in one step: there is no moment without a file at
            // the name, and until this call the old one is untouched.
            if let error = SystemCall.errnoOf({ rename(temporary.path, target.path) }) {
                discard()
                throw LogStoreError.fileSystem(target, operation: "replace", errno: error.code)
            }
        } else if let error = SystemCall.errnoOf({ link(temporary.path, target.path) }) {
            guard [EPERM, EOPNOTSUPP, ENOTSUP].contains(error.code) else {
                discard()
                if error.code == EEXIST { throw LogStoreError.fileAlreadyExists(target) }
                throw LogStoreError.fileSystem(target, operation: "create", errno: error.code)
            }
            // No hard links here (vfat, some network file systems).
            guard !Self.nameIsTaken(target) else {
                discard()
                throw LogStoreError.fileAlreadyExists(target)
            }
            if let error = SystemCall.errnoOf({ rename(temporary.path, target.path) }) {
                discard()
                throw LogStoreError.fileSystem(target, operation: "create", errno: error.code)
            }
        }
        discard()
        // The new name survives a power loss only once its directory is synced. The file is in
        // place and its bytes are synced either way, so a directory that cannot be synced (some
        // file systems refuse) does not make the export a failure.
        try? sync(target.deletingLastPathComponent())
    }

    /// Removes the temporary files (after a commit, or for a failed or cancelled export).
    func discard() {
        guard !isFinished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // The locked file last: until it goes, another export's cleanup leaves all of them alone.
        removeCompanions()
        unlink(temporary.path)
        let descriptor = lock.exchange(-1, ordering: .acquiringAndReleasing)
        if descriptor >= 0 { close(descriptor) }
    }

    /// Removes the companion files with SQLite's journals of them (a database copy's).
    private func removeCompanions() {
        let urls = companions.withLock { urls in
            defer { urls = [] }
            return urls
        }
        for url in urls {
            for journal in ["", "-journal", "-wal", "-shm"] { unlink(url.path + journal) }
        }
    }

    /// The size of the target once committed.
    var committedSize: Int64 { Files.fileSize(target) }

    private func sync(_ url: URL) throws {
        let descriptor: Int32
        switch Files.openDescriptor(url.path, O_RDONLY) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw LogStoreError.fileSystem(url, operation: "open", errno: error.code)
        }
        defer { close(descriptor) }
        if let error = SystemCall.errnoOf({ fsync(descriptor) }) {
            throw LogStoreError.fileSystem(url, operation: "sync", errno: error.code)
        }
    }

    /// Whether `url` is a directory itself (a symbolic link to one is a link, which a rename
    /// replaces).
    private static func isDirectory(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// A dangling symbolic link counts as taken: `link(2)` would not replace it either.
    private static func nameIsTaken(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0
    }
}
