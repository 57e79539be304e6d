import Foundation
import Glibc
import Synchronization

/// A directory or regular file the browser opened, and what it was when opened.
///
/// It holds the descriptor the walk opened: reads, listings and previews go through it, so what
/// is served is what was checked, whatever its name names by then. The descriptor is closed by
/// ``close()`` or when the last reference goes.
///
/// A class, not a `~Copyable` struct, so that a route can hand it to a streamed response body
/// (an escaping `@Sendable` closure) and read it from there.
final class OpenedFile: Sendable {
    /// What was opened.
    enum Kind: Sendable, Equatable {
        /// A directory: list it.
        case directory
        /// A regular file: preview or read it.
        case regularFile
    }

    /// Directory or regular file (checked on the descriptor).
    let kind: Kind
    /// Size in bytes when opened; a file being written may grow (or shrink) while it is read.
    let size: Int64
    /// Last modification when opened.
    let modified: Date
    /// The path as requested, decoded and checked: what a URL to it is built from.
    let path: RequestPath
    /// Where it really is below the browsed folder, links followed (`""` for the folder).
    let realPath: String
    /// Its device and inode.
    let identity: FileIdentity

    /// The descriptor; -1 once closed. Locked so that a close cannot land in the middle of a
    /// read, where the number could already belong to another file.
    private let descriptor: Mutex<Int32>

    init(descriptor: Int32, status: FileStatus, path: RequestPath, realPath: String) {
        self.descriptor = Mutex(descriptor)
        kind = status.kind == .directory ? .directory : .regularFile
        size = status.size
        modified = status.modified
        identity = status.identity
        self.path = path
        self.realPath = realPath
    }

    deinit {
        close()
    }

    /// Closes the descriptor now; later reads throw ``FileAccessError/closed(_:)``. Closing
    /// again does nothing.
    func close() {
        descriptor.withLock { descriptor in
            if descriptor >= 0 { FileSystemCall.close(descriptor) }
            descriptor = -1
        }
    }

    /// Reads up to `buffer.count` bytes starting at `offset` (`pread`: the offset is the
    /// caller's, so several ranges of one file can be read independently).
    ///
    ///     var offset: Int64 = range.lowerBound
    ///     let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
    ///     defer { chunk.deallocate() }
    ///     while offset < end {
    ///         let count = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: chunk[..<Int(min(Int64(chunk.count), end - offset))]), at: offset)
    ///         if count == 0 { break }    // the file shrank
    ///         …send chunk[..<count]…
    ///         offset += Int64(count)
    ///     }
    ///
    /// - Returns: the number of bytes read; 0 at the end of the file.
    /// - Throws: ``FileAccessError/wrongKind(_:expected:)`` for a directory,
    ///   ``FileAccessError/closed(_:)`` after ``close()``, ``FileAccessError/system(_:operation:errno:)``
    ///   for an I/O error.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(FileAccessError) -> Int {
        guard kind == .regularFile else { throw .wrongKind(path.path, expected: "a file") }
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let result = descriptor.withLock { descriptor -> Result<Int, FileSystemCall.Errno>? in
            guard descriptor >= 0 else { return nil }
            return FileSystemCall.valueOrErrno { pread(descriptor, base, buffer.count, off_t(offset)) }
        }
        switch result {
        case nil: throw .closed(path.path)
        case .success(let count)?: return count
        case .failure(let error)?: throw .system(path.path, operation: "pread", errno: error.code)
        }
    }

    /// Up to `limit` bytes from the start (fewer at the end of the file).
    func readPrefix(_ limit: Int) throws(FileAccessError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, limit))
        var filled = 0
        while filled < bytes.count {
            // `withUnsafeMutableBytes` rethrows untyped errors: carry the typed one out in a Result.
            let count = try bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(FileAccessError) -> Int in
                    try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), at: Int64(filled))
                }
            }.get()
            if count == 0 { break }
            filled += count
        }
        bytes.removeSubrange(filled...)
        return bytes
    }

    /// Runs `body` with the descriptor held open (a listing's `openat(fd, ".")`).
    /// - Throws: ``FileAccessError/closed(_:)`` after ``close()``, or what `body` throws.
    func withDescriptor<T>(_ body: (Int32) throws(FileAccessError) -> T) throws(FileAccessError) -> T {
        let result = descriptor.withLock { descriptor -> Result<T, FileAccessError> in
            guard descriptor >= 0 else { return .failure(.closed(path.path)) }
            do throws(FileAccessError) {
                return .success(try body(descriptor))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
