import CLinux
import Glibc

/// Names the calling thread as the kernel shows it (`top -H`, `ps -L`, `/proc/<pid>/task/*/comm`):
/// at most 15 bytes, longer names are cut.
///
/// Not Foundation's `Thread.current.name`: on Linux it reaches the kernel only when the
/// `Thread` object already knows its pthread, which the thread that started it records after
/// the start; a new thread that ran first kept its parent's name (`…default-qos`), about one
/// start in six on a loaded machine.
func nameCurrentThread(_ name: String) {
    var bytes = Array(name.utf8.prefix(15))
    // A cut must not split a character: drop continuation bytes left at the end.
    while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
    if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }
    bytes.append(0)
    _ = bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { pthread_setname_np(pthread_self(), $0.baseAddress!) }
    }
}
