import Foundation
import Glibc
import Testing

/// Under the most permissive umask, every directory of a store stays 0700 and every file in it
/// 0600 — the database, its WAL and shared memory, the manifest, the body files created while it
/// runs — and so does an exported archive. umask is process-wide, so a child process
/// (`LogStoreTestHelper permissions`) sets it: here it would change the files of parallel tests.
@Suite("Permissions")
struct PermissionsTests {
    static var helper: URL { testHelperExecutable }

    @Test func ownerOnlyModesUnderAPermissiveUmask() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.helper.path), "missing \(Self.helper.path)")
        try await withTemporaryDirectory { directory in
            // A parent that does not exist yet: the store creates it too, also 0700.
            let parent = directory.appendingPathComponent("parent", isDirectory: true)
            let store = parent.appendingPathComponent("test.logstore", isDirectory: true)
            let archive = directory.appendingPathComponent("export.lsarchive")
            let child = try ChildProcess(
                Self.helper, ["permissions", store.path, "20", archive.path], standardInput: .held,
                standardOutput: .captured)
            // Whatever happens, the child does not outlive the test.
            defer { child.stop() }

            // The child's "ready" line (its first output), waited for on a thread of its own,
            // within a bound.
            let ready = try await onOwnThread { child.waitForOutput(seconds: 120) { !$0.isEmpty }?.text }
            try #require(ready != nil, "\(child.termination.map { "the child \($0) without output" } ?? "no output in 120 s")")
            #expect(ready == "ready\n")
            // While the store is open: WAL, shared memory and the body files all exist.
            let open = try Self.modes(under: store)
            for name in ["logs.sqlite", "logs.sqlite-wal", "logs.sqlite-shm", "manifest.json", "blobs"] {
                #expect(open[name] != nil, "\(name) exists while the store is open")
            }
            #expect(open.keys.contains { $0.hasPrefix("blobs/") }, "body files exist")
            Self.expectOwnerOnly(open)
            #expect(permissions(of: store) == 0o700)
            #expect(permissions(of: parent) == 0o700)
            #expect(permissions(of: archive) == 0o600)

            // Closed: what the close rewrote (manifest, checkpointed database) keeps its mode.
            child.closeInput()
            let ended = try await onOwnThread { child.waitForTermination(seconds: 120) }
            let termination = try #require(ended, "still running 120 s after its input closed")
            #expect(termination == .exited(0))
            Self.expectOwnerOnly(try Self.modes(under: store))
            #expect(permissions(of: store) == 0o700)
        }
    }

    /// Each entry under `root` (its path relative to `root`) with its permission bits and
    /// whether it is a directory.
    static func modes(under root: URL) throws -> [String: (mode: mode_t, isDirectory: Bool)] {
        var found: [String: (mode: mode_t, isDirectory: Bool)] = [:]
        let relative = try FileManager.default.subpathsOfDirectory(atPath: root.path)
        for path in relative {
            var info = stat()
            guard lstat(root.appendingPathComponent(path).path, &info) == 0 else { continue }
            found[path] = (info.st_mode & 0o777, (info.st_mode & S_IFMT) == S_IFDIR)
        }
        return found
    }

    static func expectOwnerOnly(
        _ modes: [String: (mode: mode_t, isDirectory: Bool)], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (path, entry) in modes.sorted(by: { $0.key < $1.key }) {
            let expected: mode_t = entry.isDirectory ? 0o700 : 0o600
            #expect(entry.mode == expected, "\(path) has mode \(String(entry.mode, radix: 8))",
                sourceLocation: sourceLocation)
        }
    }
}
