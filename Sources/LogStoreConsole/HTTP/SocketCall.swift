import Glibc

/// An `errno` value from a failed socket call.
struct SocketErrno: Error, Equatable, Sendable, CustomStringConvertible {
    /// The `errno` code (`EAGAIN`, `ECONNRESET`, …).
    let code: Int32

    /// Whether the call would have blocked: a non-blocking socket with nothing to give or no
    /// room to take.
    var wouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }

    var description: String { "\(String(cString: strerror(code))) (errno \(code))" }
}

/// The one way into the C library for the server's calls that report a failure as -1 and
/// `errno`: `errno` is read right after the call, and a call interrupted by a signal (`EINTR`) is
/// made again, here and nowhere else.
enum SocketCall {
    /// The value of `call`, or the `errno` of its failure (-1), `EINTR` retried.
    @inline(__always)
    static func valueOrErrno<Value: SignedInteger & FixedWidthInteger>(_ call: () -> Value) -> Result<Value, SocketErrno> {
        while true {
            let value = call()
            guard value == -1 else { return .success(value) }
            let code = Glibc.errno
            if code == EINTR { continue }
            return .failure(SocketErrno(code: code))
        }
    }

    /// `errno` of a call that returns 0 on success and -1 on failure, `nil` on success.
    @inline(__always)
    static func errnoOf(_ call: () -> Int32) -> SocketErrno? {
        if case .failure(let error) = valueOrErrno(call) { return error }
        return nil
    }

    /// Closes `descriptor`, once: never retried, since on Linux the descriptor is gone even when
    /// `close` reports `EINTR`, and may already belong to another file by the time of a retry.
    static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// Sets an `int` socket option.
    static func setOption(_ descriptor: Int32, level: Int32, name: Int32, value: Int32) -> SocketErrno? {
        var value = value
        return errnoOf { setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) }
    }
}
