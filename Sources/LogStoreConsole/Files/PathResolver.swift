import Glibc

/// Walks a checked ``RequestPath`` from the browsed folder's descriptor, one name at a time,
/// and opens what it names.
///
/// Each name is looked at with `fstatat(…, AT_SYMLINK_NOFOLLOW)` and opened with
/// `openat(parent, name, O_NOFOLLOW | O_CLOEXEC)` relative to the descriptor of the directory
/// before it, so no path is ever looked up twice and no link is followed by the kernel. A symbolic
/// link is read (`readlinkat`) and its target walked in its place:
/// - a relative target from the directory holding the link; its `..` steps back to a directory
///   already opened on the way down (never `openat(…, "..")`), and a `..` above the folder is
///   ``FileAccessError/symlinkOutside(_:)``;
/// - an absolute target only when it starts with the folder's real path, walked from the folder's
///   descriptor; any other is ``FileAccessError/symlinkOutside(_:)``.
/// Because the directories on the way down are real directories (links replaced by their
/// targets), the names walked so far are the real path below the folder, so stepping back
/// lexically is stepping back physically. A link that leaves the folder and comes back
/// (`../DIR/x`) is refused: safer than reasoning about the folder's parent.
///
/// Race safety: if a name changes between its `fstatat` and its `openat` (a file replaced by a
/// link), `O_NOFOLLOW` / `O_DIRECTORY` make the open fail and the name is looked at again (such
/// retries count as link steps, so flipping a name back and forth cannot spin forever). The kind
/// served is the open descriptor's (`fstat`), not the earlier look. A directory moved elsewhere
/// after it was opened still only gives access to its own contents, walked the same way.
///
/// FIFOs, sockets and devices are never opened: a FIFO's open would block, a device's may act.
/// `O_NONBLOCK` covers a name that becomes one between the look and the open.
struct PathResolver {
    /// The most links (and retries after a name changed) one walk follows: Linux's `MAXSYMLINKS`.
    static let maximumLinks = 40

    /// The folder walked from.
    let root: RootDirectory

    /// A directory opened on the way down: its name and descriptor.
    private struct Level {
        var name: String
        var descriptor: Int32
    }

    /// Opens what `path` names.
    /// - Throws: see ``FileBrowser/entry(at:)-(String)``.
    func open(_ path: RequestPath) throws(FileAccessError) -> OpenedFile {
        let shown = path.path
        var pending: [String] = path.segments.reversed()  // popLast gives the next name
        var chain: [Level] = []
        defer { for level in chain { FileSystemCall.close(level.descriptor) } }
        var steps = 0

        while let name = pending.popLast() {
            switch name {
            case "", ".":
                continue  // only from link targets: request segments never hold these
            case "..":
                guard let last = chain.popLast() else { throw .symlinkOutside(shown) }
                FileSystemCall.close(last.descriptor)
                continue
            default:
                break
            }
            let parent = chain.last?.descriptor ?? root.descriptor
            let status: FileStatus
            switch FileSystemCall.statNoFollow(parent, name) {
            case .success(let info): status = FileStatus(info)
            case .failure(let error): throw FileSystemCall.accessError(error, path: shown, operation: "fstatat")
            }
            let isLast = pending.isEmpty

            if status.kind == .symbolicLink {
                steps += 1
                guard steps <= Self.maximumLinks else { throw .symlinkLoop(shown) }
                let target = try linkTarget(parent, name, shown: shown)
                if target.first == "/" {
                    chain.forEach { FileSystemCall.close($0.descriptor) }
                    chain.removeAll()
                    pending.append(contentsOf: try insideComponents(ofAbsolute: target, shown: shown).reversed())
                } else {
                    pending.append(contentsOf: target.split(separator: "/").map(String.init).reversed())
                }
                continue
            }

            if !isLast {
                guard status.kind == .directory else { throw .notADirectory(shown) }
                switch FileSystemCall.open(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) {
                case .success(let descriptor):
                    chain.append(Level(name: name, descriptor: descriptor))
                case .failure(let error) where error.code == ELOOP || error.code == ENOTDIR:
                    // Replaced since the look: look again.
                    steps += 1
                    guard steps <= Self.maximumLinks else { throw .symlinkLoop(shown) }
                    pending.append(name)
                case .failure(let error):
                    throw FileSystemCall.accessError(error, path: shown, operation: "openat")
                }
                continue
            }

            guard status.kind == .directory || status.kind == .regularFile else { throw .unsupportedKind(shown) }
            let flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (status.kind == .directory ? O_DIRECTORY : 0)
            switch FileSystemCall.open(parent, name, flags) {
            case .success(let descriptor):
                return try opened(descriptor, path: path, real: chain.map(\.name) + [name])
            case .failure(let error) where error.code == ELOOP || error.code == ENOTDIR:
                steps += 1
                guard steps <= Self.maximumLinks else { throw .symlinkLoop(shown) }
                pending.append(name)
            case .failure(let error):
                throw FileSystemCall.accessError(error, path: shown, operation: "openat")
            }
        }

        // The walk ended on a directory already open (the folder itself, or a link to `.`/`..`).
        if let last = chain.popLast() {
            return try opened(last.descriptor, path: path, real: chain.map(\.name) + [last.name])
        }
        switch FileSystemCall.open(root.descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) {
        case .success(let descriptor): return try opened(descriptor, path: path, real: [])
        case .failure(let error): throw FileSystemCall.accessError(error, path: shown, operation: "openat")
        }
    }

    /// An ``OpenedFile`` for `descriptor`, whose kind is checked on the descriptor itself.
    /// Takes ownership: the descriptor is closed if it is refused.
    private func opened(_ descriptor: Int32, path: RequestPath, real: [String]) throws(FileAccessError) -> OpenedFile {
        let status: FileStatus
        switch FileSystemCall.status(of: descriptor) {
        case .success(let info): status = FileStatus(info)
        case .failure(let error):
            FileSystemCall.close(descriptor)
            throw FileSystemCall.accessError(error, path: path.path, operation: "fstat")
        }
        guard status.kind == .directory || status.kind == .regularFile else {
            FileSystemCall.close(descriptor)
            throw .unsupportedKind(path.path)
        }
        return OpenedFile(descriptor: descriptor, status: status, path: path, realPath: real.joined(separator: "/"))
    }

    /// The target of link `name` in `parent`, as text.
    private func linkTarget(_ parent: Int32, _ name: String, shown: String) throws(FileAccessError) -> String {
        switch FileSystemCall.readLink(parent, name) {
        case .success(let bytes):
            // A target that is not UTF-8 cannot be named by the walk, which works on Strings.
            guard let target = String(validating: bytes, as: UTF8.self), !target.isEmpty else {
                throw .notFound(shown)
            }
            return target
        case .failure(let error) where error.code == EINVAL:
            // Not a link any more: the caller looks again (counted as a step).
            return "."  + "/" + name
        case .failure(let error):
            throw FileSystemCall.accessError(error, path: shown, operation: "readlinkat")
        }
    }

    /// The names below the folder of an absolute link target; refused unless it starts with the
    /// folder's real path (`.` and empty names skipped, a `..` before the folder's path ends
    /// refused rather than reasoned about).
    private func insideComponents(ofAbsolute target: String, shown: String) throws(FileAccessError) -> [String] {
        let names = target.split(separator: "/").map(String.init).filter { $0 != "." }
        guard names.count >= root.realComponents.count,
            names[..<root.realComponents.count].elementsEqual(root.realComponents)
        else { throw .symlinkOutside(shown) }
        return Array(names[root.realComponents.count...])
    }
}
