import Foundation
import Glibc

/// One name in a directory listing.
struct FileEntry: Sendable, Equatable {
    /// What a name is, as the browser will treat it.
    enum Kind: Sendable, Equatable {
        /// A directory.
        case directory
        /// A regular file.
        case file
        /// A symbolic link whose target is inside the folder: opening the entry's path gives
        /// the target (`isDirectory` says which kind it is).
        case symlink(isDirectory: Bool)
        /// A FIFO, socket or device: listed, never opened.
        case other
        /// Listed so the developer sees it exists, but a request for it is refused, and why: a
        /// name that fails ``FileNameRules`` (not NFC, a control character, …) or is not UTF-8,
        /// a link out of the folder, a dangling link.
        case unreachable(FileAccessError)
    }

    /// The name, as shown (a name that is not UTF-8 has U+FFFD where its bad bytes were).
    var name: String
    /// The path to request it by (percent-encode each segment); nil when it cannot be opened
    /// (unreachable, or a FIFO, socket or device).
    var path: RequestPath?
    /// What it is.
    var kind: Kind
    /// The size of the file, or of a link's target; nil for directories and what is unreachable.
    var size: Int64?
    /// Its last modification (of a link's target for a link); nil when unreachable.
    var modified: Date?

    /// Whether it sorts with the directories.
    var isDirectoryLike: Bool {
        switch kind {
        case .directory, .symlink(isDirectory: true): true
        default: false
        }
    }
}

/// A directory's entries, and how many were left out.
struct FileListing: Sendable, Equatable {
    /// Directories (and links to them) first, then by name ignoring case.
    var entries: [FileEntry]
    /// Entries past the limit, not listed.
    var omitted: Int
}

extension FileBrowser {
    /// The most entries a listing holds unless told otherwise: a folder of a million files must
    /// not make one response of a hundred megabytes.
    static let defaultListingLimit = 10_000

    /// The entries of `directory` (`.` and `..` left out).
    ///
    /// Names that a request path could not reach are listed as ``FileEntry/Kind/unreachable(_:)``
    /// rather than left out: a file the console silently hides is more confusing than one it
    /// says it will not open. Hidden files are listed (see ``FileNameRules``).
    ///
    /// - Parameter limit: the most entries kept, in the order the directory yields them; the
    ///   rest are counted in ``FileListing/omitted``, so sorting applies to the ones kept.
    /// - Throws: ``FileAccessError/wrongKind(_:expected:)`` for a file; an error reading the
    ///   directory.
    func listing(_ directory: OpenedFile, limit: Int = FileBrowser.defaultListingLimit) throws(FileAccessError) -> FileListing {
        guard directory.kind == .directory else { throw .wrongKind(directory.path.path, expected: "a folder") }
        let shown = directory.path.path
        // A fresh open file description of the same directory: its own read position, so two
        // listings of one OpenedFile do not interleave, and closedir closes only it.
        let own = try directory.withDescriptor { (descriptor) throws(FileAccessError) -> Int32 in
            switch FileSystemCall.open(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) {
            case .success(let own): return own
            case .failure(let error): throw FileSystemCall.accessError(error, path: shown, operation: "openat")
            }
        }
        guard let stream = fdopendir(own) else {
            let code = Glibc.errno
            FileSystemCall.close(own)
            throw .system(shown, operation: "fdopendir", errno: code)
        }
        defer { closedir(stream) }

        var entries: [FileEntry] = []
        var omitted = 0
        while true {
            Glibc.errno = 0
            guard let record = readdir(stream) else {
                if Glibc.errno != 0 { throw .system(shown, operation: "readdir", errno: Glibc.errno) }
                break
            }
            let bytes = Self.nameBytes(record)
            if bytes == [UInt8(ascii: ".")] || bytes == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            guard entries.count < limit else {
                omitted += 1
                continue
            }
            entries.append(entry(named: bytes, in: own, of: directory))
        }
        entries.sort { left, right in
            if left.isDirectoryLike != right.isDirectoryLike { return left.isDirectoryLike }
            let (l, r) = (left.name.lowercased(), right.name.lowercased())
            return l != r ? l.unicodeScalars.lexicographicallyPrecedes(r.unicodeScalars)
                : left.name.unicodeScalars.lexicographicallyPrecedes(right.name.unicodeScalars)
        }
        return FileListing(entries: entries, omitted: omitted)
    }

    /// The entry for the name `bytes` in the directory open as `descriptor`.
    private func entry(named bytes: [UInt8], in descriptor: Int32, of directory: OpenedFile) -> FileEntry {
        guard let name = String(validating: bytes, as: UTF8.self) else {
            return FileEntry(name: String(decoding: bytes, as: UTF8.self), path: nil, kind: .unreachable(.invalidUTF8))
        }
        do throws(FileAccessError) {
            try FileNameRules.check(name)
        } catch {
            return FileEntry(name: name, path: nil, kind: .unreachable(error))
        }
        let path = directory.path.appending(checked: name)
        let status: FileStatus
        switch FileSystemCall.statNoFollow(descriptor, name) {
        case .success(let info): status = FileStatus(info)
        case .failure(let error):
            // Removed since readdir, or not searchable.
            return FileEntry(name: name, path: nil, kind: .unreachable(FileSystemCall.accessError(error, path: path.path, operation: "fstatat")))
        }
        switch status.kind {
        case .directory:
            return FileEntry(name: name, path: path, kind: .directory, modified: status.modified)
        case .regularFile:
            return FileEntry(name: name, path: path, kind: .file, size: status.size, modified: status.modified)
        case .other:
            return FileEntry(name: name, path: nil, kind: .other, size: nil, modified: status.modified)
        case .symbolicLink:
            // Resolved from the directory's real place, as the kernel would resolve the link,
            // by the same walk a request for it takes.
            let real = RequestPath(checkedSegments: directory.realPath.split(separator: "/").map(String.init) + [name])
            do throws(FileAccessError) {
                let target = try PathResolver(root: root).open(real)
                defer { target.close() }
                let isDirectory = target.kind == .directory
                return FileEntry(
                    name: name, path: path, kind: .symlink(isDirectory: isDirectory),
                    size: isDirectory ? nil : target.size, modified: target.modified)
            } catch {
                return FileEntry(name: name, path: nil, kind: .unreachable(Self.renamed(error, to: path.path)))
            }
        }
    }

    /// `error` naming `path` (the listed path) in place of the real one it was found at.
    private static func renamed(_ error: FileAccessError, to path: String) -> FileAccessError {
        switch error {
        case .symlinkOutside: .symlinkOutside(path)
        case .symlinkLoop: .symlinkLoop(path)
        case .notFound: .notFound(path)
        case .notADirectory: .notADirectory(path)
        case .unsupportedKind: .unsupportedKind(path)
        case .permission: .permission(path)
        default: error
        }
    }

    /// The name of a `readdir` record, as bytes (`d_name` is a NUL-terminated C array).
    private static func nameBytes(_ record: UnsafeMutablePointer<dirent>) -> [UInt8] {
        withUnsafeBytes(of: &record.pointee.d_name) { raw in
            Array(raw.prefix { $0 != 0 })
        }
    }
}
