import Glibc
import Synchronization

/// One line to standard output, written with write(2) at once under a lock: lines from several
/// tasks never interleave, and each reaches the pipe whole before a kill, so the test reads
/// exactly what the child said before it died.
private let lineOutputLock = Mutex(())

func say(_ line: String) {
    lineOutputLock.withLock { _ in
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if result < 0 {
                if errno == EINTR { continue }
                exit(1)
            }
            written += result
        }
    }
}
