import Foundation
import Glibc

/// A buffered writer over a file descriptor for the streaming formats: text is appended in
/// pieces and written in blocks of 256 KiB, so memory stays bounded whatever the export's size.
final class ExportOutput {
    private let descriptor: Int32
    private let url: URL
    private var buffer: [UInt8] = []
    private static let blockSize = 256 << 10
    /// Bytes handed to `write` so far (written or buffered).
    private(set) var byteCount: Int64 = 0

    init(descriptor: Int32, url: URL) {
        self.descriptor = descriptor
        self.url = url
        buffer.reserveCapacity(Self.blockSize + 4096)
    }

    /// Appends text as UTF-8.
    func write(_ text: String) throws {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
        byteCount += Int64(text.utf8.count)
        if buffer.count >= Self.blockSize { try flush() }
    }

    /// Appends bytes.
    func write(_ bytes: some Sequence<UInt8>) throws {
        let before = buffer.count
        buffer.append(contentsOf: bytes)
        byteCount += Int64(buffer.count - before)
        if buffer.count >= Self.blockSize { try flush() }
    }

    /// Writes what is buffered.
    func flush() throws {
        guard !buffer.isEmpty else { return }
        let failure = buffer.withUnsafeBytes { SystemCall.writeAll($0, to: descriptor) }
        buffer.removeAll(keepingCapacity: true)
        if let failure { throw LogStoreError.fileSystem(url, operation: "write", errno: failure.code) }
    }
}
