import CLinux
import Glibc

/// The calling thread's name as the kernel shows it (`top -H`, `ps -L`,
/// `/proc/<pid>/task/*/comm`).
enum ThreadName {
    /// Names the calling thread `name`, cut to the kernel's 15 bytes at a character boundary.
    ///
    /// Not Foundation's `Thread.current.name`: on Linux it reaches the kernel only when the
    /// `Thread` object already knows its pthread, which the thread that started it records after
    /// the start; a new thread that ran first kept its parent's name (`…default-qos`), about one
    /// start in six on a loaded machine.
    static func setCurrent(_ name: String) {
        var bytes = Array(name.utf8)
        if bytes.count > 15 {
            var end = 15
            while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            bytes.removeSubrange(end...)
        }
        _ = String(decoding: bytes, as: UTF8.self).withCString { pthread_setname_np(pthread_self(), $0) }
    }
}
