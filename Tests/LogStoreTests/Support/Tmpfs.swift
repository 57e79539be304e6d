import Foundation
import Testing

/// A real small volume: a `tmpfs` mounted on a fresh directory, for the tests that need a disk
/// that really fills up or turns read-only. Mounting needs root (the test machines and CI run
/// the suite as root); elsewhere those tests skip and say so.
enum Tmpfs {
    static let mount = "/bin/mount"
    static let umount = "/bin/umount"

    /// Whether a tmpfs can be mounted here (tried once, on a probe directory).
    static let isAvailable: Bool = {
        let probe = FileManager.default.temporaryDirectory
            .appendingPathComponent("logstore-tmpfs-probe-\(UUID().uuidString)", isDirectory: true)
        guard (try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)) != nil else {
            return false
        }
        defer { try? FileManager.default.removeItem(at: probe) }
        guard (try? runProcess(mount, ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.path]))?.status == 0 else {
            return false
        }
        _ = try? runProcess(umount, [probe.path])
        return true
    }()

    /// Mounts a tmpfs of `size` (`mount`'s syntax: "4m", "256k") on `directory`, which must exist.
    static func mount(size: String, on directory: URL) async throws {
        try await run(mount, ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", directory.path])
    }

    /// Remounts the volume on `directory` read-only or writable again; the error names `mount`'s
    /// reason (Linux refuses a read-only remount while a file on it is open for writing).
    static func remount(_ directory: URL, readOnly: Bool) async throws {
        try await run(mount, ["-o", readOnly ? "remount,ro" : "remount,rw", directory.path])
    }

    /// Unmounts `directory`, lazily when something still has it open (a failed test's store):
    /// the volume never outlives the test.
    static func unmount(_ directory: URL) async {
        let lazy = try? await onOwnThread { () -> Bool in
            (try runProcess(umount, [directory.path])).status != 0
        }
        if lazy ?? true { _ = try? await onOwnThread { try runProcess(umount, ["-l", directory.path]) } }
    }

    private static func run(_ executable: String, _ arguments: [String]) async throws {
        // A process wait: on a thread of its own, not the cooperative pool.
        let result = try await onOwnThread { try runProcess(executable, arguments) }
        guard result.status == 0 else {
            throw ShellError(
                command: ([executable] + arguments).joined(separator: " "), status: result.status,
                output: result.standardError)
        }
    }
}

/// Runs `body` with a fresh directory on which a tmpfs of `size` is mounted, then unmounts it
/// and removes the directory, also when `body` throws.
func withTmpfs<T>(size: String, _ body: (URL) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { directory in
        let volume = directory.appendingPathComponent("volume", isDirectory: true)
        try FileManager.default.createDirectory(at: volume, withIntermediateDirectories: true)
        try await Tmpfs.mount(size: size, on: volume)
        let result: T
        do {
            result = try await body(volume)
        } catch {
            await Tmpfs.unmount(volume)
            throw error
        }
        await Tmpfs.unmount(volume)
        return result
    }
}

/// Writes `bytes` zero bytes to a new file at `url`: room taken on a volume, given back by
/// deleting the file.
func writeFiller(_ url: URL, bytes: Int) throws {
    try Data(count: bytes).write(to: url)
}

/// `PRAGMA integrity_check` of a closed store's database, through the `sqlite3` shell.
func integrityCheck(_ store: URL) throws -> String {
    try SQLiteShell.run(store.appendingPathComponent("logs.sqlite"), "PRAGMA integrity_check", readOnly: true)
}
