import Foundation
import Glibc

@testable import LogStoreConsole

extension FuzzEntry {
    /// The console's file browser: the bytes are a request path (as the route passes it, still
    /// percent-encoded), resolved in a fixed tree. Whatever opens must be an object inside the
    /// tree's root (by device and inode, collected without following links, so the check does
    /// not trust the browser's own resolution), never the secret file beside it; a listing or
    /// preview of it must not hold the secret's bytes; and the call must answer in bounded time.
    static func consolePath(_ data: Data) -> String? {
        let tree: ConsolePathTree
        switch ConsolePathTree.shared {
        case .success(let built): tree = built
        case .failure(let error): return "could not build the fuzz tree: \(error)"
        }
        let path = String(decoding: data, as: UTF8.self)
        let started = ContinuousClock.now
        let opened: OpenedFile
        do throws(FileAccessError) {
            opened = try tree.browser.entry(at: path)
        } catch {
            // A refusal is the browser doing its job; its message must still be sayable.
            _ = error.description
            return slow(since: started, path)
        }
        defer { opened.close() }
        guard opened.identity != tree.secret else { return "\(path.debugDescription) opened the secret" }
        guard tree.inside.contains(opened.identity) else {
            return "\(path.debugDescription) opened an object outside the root (real path \(opened.realPath.debugDescription))"
        }
        do throws(FileAccessError) {
            if opened.kind == .directory {
                let names = try tree.browser.listing(opened).entries.map(\.name).joined(separator: "\n")
                if names.contains(ConsolePathTree.secretText) { return "a listing of \(path.debugDescription) shows the secret" }
            } else {
                let bytes = try opened.readPrefix(4096)
                if String(decoding: bytes, as: UTF8.self).contains(ConsolePathTree.secretText) {
                    return "\(path.debugDescription) read the secret's bytes"
                }
                let preview = String(describing: try tree.browser.preview(opened, byteLimit: 4096))
                if preview.contains(ConsolePathTree.secretText) { return "a preview of \(path.debugDescription) shows the secret" }
            }
        } catch {
            return "\(path.debugDescription) opened, then failed: \(error)"
        }
        return slow(since: started, path)
    }

    /// A finding when one call took more than a second: every path is at most a few dozen
    /// system calls (libFuzzer's own `-timeout` catches a call that never returns).
    private static func slow(since started: ContinuousClock.Instant, _ path: String) -> String? {
        let elapsed = ContinuousClock.now - started
        return elapsed > .seconds(1) ? "\(path.debugDescription) took \(elapsed)" : nil
    }
}

/// The fixed tree the console path fuzzer resolves in, built once per process under the
/// temporary directory: `root/` with files, a subfolder, links inside and out, and
/// `secret/secret.txt` beside it.
struct ConsolePathTree: Sendable {
    /// The secret file's text: no path may reach it.
    static let secretText = "FUZZ-SECRET-c41d7e"

    let browser: FileBrowser
    /// Every object in the root, the root included, found without following links.
    let inside: Set<FileIdentity>
    /// The secret file.
    let secret: FileIdentity

    /// Built on first use (a global's initializer runs once, thread-safely).
    static let shared: Result<ConsolePathTree, any Error> = Result { try ConsolePathTree() }

    /// Where the tree is: one per process.
    private static let base = FileManager.default.temporaryDirectory.appendingPathComponent("logstore-fuzz-console-\(getpid())")

    private init() throws {
        let fm = FileManager.default
        let base = Self.base
        try? fm.removeItem(at: base)  // a leftover of an earlier process with the same pid
        // Removed when the process exits normally (a test run; libFuzzer stopping on a finding
        // may leave it, under the temporary directory).
        atexit { try? FileManager.default.removeItem(at: ConsolePathTree.base) }
        let root = base.appendingPathComponent("root")
        try fm.createDirectory(at: root.appendingPathComponent("sub/deeper"), withIntermediateDirectories: true)
        try fm.createDirectory(at: base.appendingPathComponent("secret"), withIntermediateDirectories: true)
        let secretFile = base.appendingPathComponent("secret/secret.txt")
        try Data(Self.secretText.utf8).write(to: secretFile)
        for (name, text) in [("a.txt", "a"), ("b c.txt", "b c"), ("café.txt", "café"), (".hidden", "h"), ("%2e%2e", "dots"),
                             ("sub/n.txt", "n"), ("sub/deeper/d.json", "{\"k\": [1]}")] {
            try Data(text.utf8).write(to: root.appendingPathComponent(name))
        }
        let links = [
            ("in", "sub/n.txt"), ("in-dir", "sub"), ("sub/up", "../a.txt"), ("sub/deeper/up2", "../../sub"),
            ("out", "../secret/secret.txt"), ("out-dir", "../secret"), ("abs-out", secretFile.resolvingSymlinksInPath().path),
            ("abs-in", root.resolvingSymlinksInPath().appendingPathComponent("a.txt").path),
            ("back-in", "../root/a.txt"), ("loop", "loop"), ("dangling", "none"), ("sub/out2", "../../secret"),
        ]
        for (name, target) in links {
            try fm.createSymbolicLink(atPath: root.appendingPathComponent(name).path, withDestinationPath: target)
        }
        browser = try FileBrowser(root: root)
        secret = try Self.identity(secretFile.path)
        var inside: Set<FileIdentity> = [try Self.identity(root.path)]
        // The enumerator does not descend into links to directories, and `lstat` does not
        // follow links: these are the objects the root really contains.
        if let walker = fm.enumerator(atPath: root.path) {
            for case let relative as String in walker {
                inside.insert(try Self.identity(root.appendingPathComponent(relative).path))
            }
        }
        self.inside = inside
    }

    /// `lstat`'s device and inode for `path`.
    private static func identity(_ path: String) throws -> FileIdentity {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path]) }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
