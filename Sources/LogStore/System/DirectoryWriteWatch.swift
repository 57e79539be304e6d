import Glibc

/// Tells, without polling, when some files of one directory are written: Linux's inotify on the
/// directory rather than on the files, so a file created after the watch began (a WAL that the
/// last connection's close deleted and the next open makes again) is seen as well.
///
/// The descriptor is non-blocking: wait until it is readable (a dispatch read source), then
/// ``drain()`` it. The corresponding C functions are `inotify_init1(2)`,
/// `inotify_add_watch(2)` and `read(2)`.
final class DirectoryWriteWatch: Sendable {
    /// The inotify descriptor; closed by ``close()``.
    let descriptor: Int32
    /// The files of the directory whose writes count; writes to the others are read and ignored.
    private let names: Set<String>

    /// A write into a file (`IN_MODIFY`), a file made (`IN_CREATE`) or moved in (`IN_MOVED_TO`).
    private static let mask = UInt32(IN_MODIFY) | UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)
    /// Set by the kernel when events were lost (`IN_Q_OVERFLOW`) or the watch ended because the
    /// directory went (`IN_IGNORED`): anything may have changed.
    private static let lossMask = UInt32(IN_Q_OVERFLOW) | UInt32(IN_IGNORED)
    /// `struct inotify_event`'s fixed part: `wd`, `mask`, `cookie`, `len`, then `len` bytes of name.
    private static let headerSize = 16

    /// Starts watching `directory` for writes to the files called `names`.
    ///
    /// - Throws: the `errno` of `inotify_init1` (`EMFILE` past the per-user instance limit,
    ///   `ENOSYS` where inotify is missing) or of `inotify_add_watch` (`ENOSPC` past the watch
    ///   limit, `EACCES`): the caller then polls instead.
    init(directory: String, names: Set<String>) throws(Errno) {
        let descriptor = try SystemCall.valueOrErrno { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }.get()
        if case .failure(let error) = SystemCall.valueOrErrno({ inotify_add_watch(descriptor, directory, Self.mask) }) {
            _ = SystemCall.errnoOf(retryingOnInterrupt: false) { Glibc.close(descriptor) }
            throw error
        }
        self.descriptor = descriptor
        self.names = names
    }

    /// Reads every queued event without blocking.
    ///
    /// - Returns: whether one was a write to a watched file, or events were lost (then any file
    ///   may have been written); `false` when nothing was queued.
    func drain() -> Bool {
        var matched = false
        // Room for many events per read: each is 16 bytes and a name padded to a few words.
        withUnsafeTemporaryAllocation(byteCount: 4_096, alignment: 8) { buffer in
            guard let base = buffer.baseAddress else { return }
            while true {
                let count: Int
                switch SystemCall.valueOrErrno({ read(descriptor, base, buffer.count) }) {
                case .success(let read): count = read
                // EAGAIN: nothing more is queued. Any other failure: stop reading, and say a
                // write may have happened rather than lose one.
                case .failure(let error):
                    if error.code != EAGAIN { matched = true }
                    return
                }
                guard count > 0 else { return }
                if !matched { matched = containsMatch(UnsafeRawBufferPointer(start: base, count: count)) }
            }
        }
        return matched
    }

    /// Whether the events in `bytes` (whole events, as one `read` returns them) include a write
    /// to a watched name or a loss.
    private func containsMatch(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset + Self.headerSize <= bytes.count {
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameStart = offset + Self.headerSize
            offset = nameStart + length
            if mask & Self.lossMask != 0 { return true }
            guard mask & Self.mask != 0, length > 0, offset <= bytes.count else { continue }
            // The name is NUL-padded to its length.
            let nameBytes = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<offset])
            let end = nameBytes.firstIndex(of: 0) ?? nameBytes.endIndex
            if names.contains(String(decoding: nameBytes[..<end], as: UTF8.self)) { return true }
        }
        return false
    }

    /// Closes the descriptor: once, after the read source waiting on it is cancelled.
    func close() {
        // close(2) is never retried on Linux (see ``SystemCall``); a failure leaves nothing to do.
        _ = SystemCall.errnoOf(retryingOnInterrupt: false) { Glibc.close(descriptor) }
    }
}
