import Foundation
import Glibc
import Synchronization

/// The private directory an opened archive extracts its database into: under the system's
/// temporary directory (`TMPDIR`), in `logstore-archives-<uid>` (mode 0700, this user's, checked),
/// one `archive-XXXXXX` directory per open archive, removed at close.
///
/// Each holds a `lock` file locked (`flock`) for as long as its archive is open. A crash leaves the
/// directory but drops the lock, so the next open of any archive removes directories whose lock it
/// can take: nothing is left behind for long, and nothing in use is ever removed.
final class ArchiveScratchDirectory: Sendable {
    let url: URL
    private let lock: Atomic<Int32>

    /// Creates a new private directory, after removing those a crashed process left.
    init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("logstore-archives-\(geteuid())")
        try Self.preparePrivateDirectory(base)
        Self.removeAbandoned(in: base)
        var template = Array(base.appendingPathComponent("archive-XXXXXX").path.utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        guard created else { throw LogStoreError.fileSystem(base, operation: "create a directory in", errno: errno) }
        let path = String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let url = URL(fileURLWithPath: path, isDirectory: true)
        let lockURL = url.appendingPathComponent("lock")
        // Locked under another name, then renamed: `lock` never exists unlocked while the
        // directory is in use, so another process's cleanup cannot take it in between.
        let newLockURL = url.appendingPathComponent("lock.new")
        let opened = Files.openDescriptor(newLockURL.path, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW)
        let descriptor = (try? opened.get()) ?? -1
        guard descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) == 0, rename(newLockURL.path, lockURL.path) == 0 else {
            var code = errno
            if case .failure(let error) = opened { code = error.code }
            if descriptor >= 0 { close(descriptor) }
            try? FileManager.default.removeItem(at: url)
            throw LogStoreError.fileSystem(lockURL, operation: "create", errno: code)
        }
        self.url = url
        self.lock = Atomic(descriptor)
    }

    deinit {
        remove()
    }

    /// Deletes the directory and everything in it, then lets the lock go. Idempotent.
    func remove() {
        let descriptor = lock.exchange(-1, ordering: .acquiringAndReleasing)
        guard descriptor >= 0 else { return }
        // Only files this library put there (the database, the manifest, the lock): a failure
        // leaves the directory for the next open's cleanup, which is why it is not reported.
        try? FileManager.default.removeItem(at: url)
        close(descriptor)
    }

    /// Creates `base` owner-only, or checks that the existing one is a real directory of this user
    /// that nobody else may enter: another user could otherwise plant or read files in it.
    private static func preparePrivateDirectory(_ base: URL) throws {
        if mkdir(base.path, 0o700) == 0 { return }
        guard errno == EEXIST else { throw LogStoreError.fileSystem(base, operation: "create", errno: errno) }
        var info = stat()
        guard lstat(base.path, &info) == 0 else { throw LogStoreError.fileSystem(base, operation: "inspect", errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == geteuid(), (info.st_mode & 0o077) == 0 else {
            throw LogStoreError.fileSystem(base, operation: "use as a private directory (it is not one of this user's, mode 0700)", errno: EACCES)
        }
    }

    /// Removes the directories whose archive is no longer open (their lock is free).
    private static func removeAbandoned(in base: URL) {
        guard let names = try? Files.directoryEntries(base) else { return }
        for name in names where name.hasPrefix("archive-") {
            let directory = base.appendingPathComponent(name, isDirectory: true)
            guard case .success(let descriptor) = Files.openDescriptor(
                directory.appendingPathComponent("lock").path, O_RDWR | O_NOFOLLOW)
            else {
                // No lock file: a crash between creating the directory and its lock, or a
                // directory being created right now; only old ones go.
                if let modified = Files.modificationDate(directory), modified < Date().addingTimeInterval(-60) {
                    try? FileManager.default.removeItem(at: directory)
                }
                continue
            }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                try? FileManager.default.removeItem(at: directory)
            }
            close(descriptor)
        }
    }
}
