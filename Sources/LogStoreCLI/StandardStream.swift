import Glibc

/// A `TextOutputStream` onto a file descriptor: standard output or standard error.
///
/// Each `write` goes straight to the descriptor (the command buffers its own output), so nothing
/// is lost when the process exits with `exit(_:)`.
public struct StandardStream: TextOutputStream, Sendable {
    /// The file descriptor written to.
    public let fileDescriptor: Int32

    /// Standard output (descriptor 1).
    public static let output = StandardStream(fileDescriptor: STDOUT_FILENO)
    /// Standard error (descriptor 2).
    public static let error = StandardStream(fileDescriptor: STDERR_FILENO)

    /// A stream onto `fileDescriptor`, which stays open and owned by the caller.
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Writes all of `string`, retrying short and interrupted writes. A closed pipe or a full disk
    /// ends the write silently: there is nowhere left to report it.
    public mutating func write(_ string: String) {
        var text = string
        text.withUTF8 { bytes in
            guard var base = bytes.baseAddress else { return }
            var remaining = bytes.count
            while remaining > 0 {
                let written = Glibc.write(fileDescriptor, base, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                base += written
                remaining -= written
            }
        }
    }

    /// Whether the descriptor is a terminal.
    public var isTerminal: Bool {
        isatty(fileDescriptor) == 1
    }
}
