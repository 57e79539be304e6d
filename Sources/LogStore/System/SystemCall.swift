import Glibc

/// An `errno` value from a failed system call.
struct Errno: Error, Equatable, Sendable {
    let code: Int32
}

/// The one way into libc's calls that report a failure as -1 (or a null pointer) and `errno`,
/// as swift-system's `valueOrErrno`: `errno` is read right after the call, before anything else
/// can overwrite it, and a call interrupted by a signal (`EINTR`) is made again, in one place.
enum SystemCall {
    /// The value of `call`, or the `errno` of its failure (-1). A call that fails with `EINTR`
    /// is made again unless `retryingOnInterrupt` is false: `close(2)` must never be retried on
    /// Linux (the descriptor is gone even when it reports `EINTR`, and may already be reused).
    @inline(__always)
    static func valueOrErrno<Value: SignedInteger & FixedWidthInteger>(
        retryingOnInterrupt: Bool = true, _ call: () -> Value
    ) -> Result<Value, Errno> {
        while true {
            let value = call()
            guard value == -1 else { return .success(value) }
            let code = Glibc.errno
            if code == EINTR && retryingOnInterrupt { continue }
            return .failure(Errno(code: code))
        }
    }

    /// The pointer `call` returns, or the `errno` of its failure (a null pointer); `EINTR`
    /// makes the call again.
    @inline(__always)
    static func valueOrErrno<Value>(_ call: () -> Value?) -> Result<Value, Errno> {
        while true {
            if let value = call() { return .success(value) }
            let code = Glibc.errno
            if code == EINTR { continue }
            return .failure(Errno(code: code))
        }
    }

    /// `errno` of a call that returns 0 on success and -1 on failure, `nil` on success.
    @inline(__always)
    static func errnoOf(retryingOnInterrupt: Bool = true, _ call: () -> Int32) -> Errno? {
        if case .failure(let error) = valueOrErrno(retryingOnInterrupt: retryingOnInterrupt, call) { return error }
        return nil
    }

    /// Writes all of `bytes` to `descriptor` (a short write continues where it stopped).
    /// - Returns: the `errno` of a failure, `nil` when everything was written.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Errno? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            switch valueOrErrno({ write(descriptor, base + offset, bytes.count - offset) }) {
            case .success(let written): offset += written
            case .failure(let error): return error
            }
        }
        return nil
    }
}
