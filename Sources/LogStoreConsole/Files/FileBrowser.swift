import Foundation
import Glibc

/// Read-only access to one folder and everything beneath it, for `logstore serve --files DIR`:
/// open by request path, list, preview, read in chunks. Nothing outside the folder is reachable.
///
///     let browser = try FileBrowser(root: URL(fileURLWithPath: "/var/log/myapp"))
///     let file = try browser.entry(at: "logs/a%20b.txt")    // as it came in the URL
///     let preview = try browser.preview(file)
///
/// A request path is decoded and checked by ``RequestPath``, then walked name by name from a
/// descriptor of the folder by ``PathResolver`` (`openat` with `O_NOFOLLOW`): a symbolic link is
/// read and followed only while it stays inside, and what is finally served is the descriptor
/// that walk opened, never a path looked up again. See ``PathResolver`` for the details.
///
/// A value is cheap to copy and safe to share between threads: the folder's descriptor is held
/// by one immutable object, closed when the last copy goes.
struct FileBrowser: Sendable {
    /// The folder's descriptor and real path.
    let root: RootDirectory

    /// Opens `root` for browsing.
    /// - Throws: ``FileAccessError/unusableRoot(_:reason:)`` when it does not exist, is not a
    ///   directory, or cannot be opened.
    init(root: URL) throws(FileAccessError) {
        self.root = try RootDirectory(root.path)
    }

    /// The folder's real path (links resolved), as the walk compares absolute link targets to it.
    var rootPath: String { root.realPath }

    /// Opens what `requestPath` names: a directory or a regular file.
    /// - Parameter requestPath: the URL path after the route's prefix, still percent-encoded
    ///   (`logs/a%20b.txt`); empty for the folder itself.
    /// - Throws: a path error (400), ``FileAccessError/symlinkOutside(_:)``,
    ///   ``FileAccessError/permission(_:)`` and the other refusals (403),
    ///   ``FileAccessError/notFound(_:)`` / ``FileAccessError/notADirectory(_:)`` (404).
    func entry(at requestPath: String) throws(FileAccessError) -> OpenedFile {
        try entry(at: RequestPath(encoded: requestPath))
    }

    /// Opens what an already checked path names (see ``entry(at:)-(String)``).
    func entry(at path: RequestPath) throws(FileAccessError) -> OpenedFile {
        try PathResolver(root: root).open(path)
    }
}

/// The browsed folder: its real path and a descriptor of it, held for the browser's life.
///
/// Sendable without a lock: both properties are immutable, and the descriptor is only used
/// with `*at` calls, which do not change it.
final class RootDirectory: Sendable {
    /// The real path: absolute, no `.`, `..` or links (`realpath(3)` of the path given).
    let realPath: String
    /// The real path's names (empty for `/`).
    let realComponents: [String]
    /// A descriptor of the folder, opened once: every walk starts here, so a folder renamed or
    /// replaced while the console runs keeps being the one browsed.
    let descriptor: Int32

    /// Resolves and opens `path`.
    init(_ path: String) throws(FileAccessError) {
        guard let resolved = realpath(path, nil) else {
            let code = Glibc.errno
            let reason = code == ENOENT ? "it does not exist" : FileSystemCall.message(code)
            throw .unusableRoot(path, reason: reason)
        }
        let real = String(cString: resolved)
        free(resolved)
        realPath = real
        realComponents = real.split(separator: "/").map(String.init)
        switch FileSystemCall.valueOrErrno({ open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }) {
        case .success(let descriptor):
            self.descriptor = descriptor
        case .failure(let error):
            let reason = error.code == ENOTDIR ? "it is not a directory" : FileSystemCall.message(error.code)
            throw .unusableRoot(path, reason: reason)
        }
    }

    deinit {
        FileSystemCall.close(descriptor)
    }
}
