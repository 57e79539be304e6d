#if SwiftLog
import Glibc

/// Points the process's standard output at `/dev/null` for a while, so swift-log's
/// `StreamLogHandler.standardOutput` can be timed doing all its work (formatting, `fwrite`,
/// `fflush`) without the benchmark's terminal or pipe in the figure. swift-log's initializer
/// that takes any stream is internal; moving file descriptor 1 is the public way to the same.
final class DevNullStandardOutput {
    private let devNull: Int32

    init() throws {
        devNull = open("/dev/null", O_WRONLY)
        guard devNull >= 0 else { throw BenchError.failed("swiftlog: cannot open /dev/null (errno \(errno))") }
    }

    deinit {
        close(devNull)
    }

    /// Runs `body` with standard output on `/dev/null`, then puts it back. What was written
    /// before is flushed first, and what `body` wrote is flushed into `/dev/null` before the
    /// switch back, so none of the benchmark's own lines are lost or swallowed.
    func whileRedirected<Result>(_ body: () -> Result) throws -> Result {
        // Every stream, not `stdout` alone: Swift 6 refuses C's global `stdout` (shared mutable
        // state), and flushing the others too costs nothing here.
        fflush(nil)
        let saved = dup(STDOUT_FILENO)
        guard saved >= 0, dup2(devNull, STDOUT_FILENO) >= 0 else {
            if saved >= 0 { close(saved) }
            throw BenchError.failed("swiftlog: cannot move standard output to /dev/null (errno \(errno))")
        }
        defer {
            fflush(nil)
            dup2(saved, STDOUT_FILENO)
            close(saved)
        }
        return body()
    }
}
#endif
