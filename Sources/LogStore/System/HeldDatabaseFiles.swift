import Glibc
import Synchronization

/// The database files this process's SQLite connections have open, by device and inode.
///
/// SQLite's locks are POSIX advisory locks, and those belong to the process: a `close()` of any
/// descriptor of a file drops every lock the process holds on it, SQLite's included, without
/// SQLite knowing (sqlite.org/howtocorrupt.html, 2.2). Another process may then take the
/// exclusive lock, checkpoint, and delete the WAL and its shared memory while this one still
/// writes them: the store is corrupted. SQLite guards its own connections against each other; a
/// descriptor opened outside SQLite it cannot guard. So every ``Connection`` records its file
/// here, and ``Files/openDescriptor(_:flags:operation:)``, the one way the library opens an
/// existing file, refuses one that is recorded (or that is the WAL or shared memory of one).
enum HeldDatabaseFiles {
    /// A file's identity: the same file under any name.
    struct FileID: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64

        /// The file at `path` (a symbolic link followed), if there is one.
        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// How many connections hold each file.
    private static let held = Mutex<[FileID: Int]>([:])

    /// Records that a connection opened the database at `path`; returns what to pass to
    /// ``release(_:)`` when it closes (nil when `path` is no file: a database in memory).
    static func hold(path: String) -> FileID? {
        guard !path.isEmpty, let file = FileID(path: path) else { return nil }
        held.withLock { $0[file, default: 0] += 1 }
        return file
    }

    /// A connection holding `file` closed.
    static func release(_ file: FileID) {
        held.withLock { held in
            guard let count = held[file] else { return }
            held[file] = count > 1 ? count - 1 : nil
        }
    }

    /// Whether `path` is a database a connection of this process has open, or its WAL, shared
    /// memory or rollback journal (the shared memory's locks are POSIX locks too).
    static func contains(path: String) -> Bool {
        var candidates = [path]
        for suffix in ["-wal", "-shm", "-journal"] where path.hasSuffix(suffix) {
            candidates.append(String(path.dropLast(suffix.count)))
        }
        let files = candidates.compactMap(FileID.init(path:))
        guard !files.isEmpty else { return false }
        return held.withLock { held in files.contains { held[$0] != nil } }
    }
}
