import Foundation
import Glibc

/// A buffered writer over a file descriptor for the streaming formats: text is appended in
/// pieces and written in blocks of 256 KiB, so memory stays bounded whatever the export's size.
final class ExportOutput {
    private let descriptor: Int32
    private let url: URL
    /// What is not written yet. Rows are formatted straight into it (``append(_:)``), so a row
    /// is copied once, into the write.
    private var buffer: ExportLine
    private static let blockSize = 256 << 10
    /// Bytes handed over so far (written or buffered).
    var byteCount: Int64 { written + Int64(buffer.bytes.count) }
    private var written: Int64 = 0

    init(descriptor: Int32, url: URL) {
        self.descriptor = descriptor
        self.url = url
        buffer = ExportLine(capacity: Self.blockSize + 64 << 10)
    }

    /// Appends text as UTF-8.
    func write(_ text: String) throws {
        var text = text
        text.withUTF8 { buffer.bytes.append(contentsOf: $0) }
        if buffer.bytes.count >= Self.blockSize { try flush() }
    }

    /// Appends bytes.
    func write(_ bytes: some Sequence<UInt8>) throws {
        buffer.bytes.append(contentsOf: bytes)
        if buffer.bytes.count >= Self.blockSize { try flush() }
    }

    /// Appends what `body` writes into the buffer itself (one row, say): no line in between.
    func append(_ body: (inout ExportLine) throws -> Void) throws {
        try body(&buffer)
        if buffer.bytes.count >= Self.blockSize { try flush() }
    }

    /// Writes what is buffered.
    func flush() throws {
        guard !buffer.bytes.isEmpty else { return }
        let failure = buffer.bytes.withUnsafeBytes { SystemCall.writeAll($0, to: descriptor) }
        written += Int64(buffer.bytes.count)
        buffer.reset()
        if let failure { throw LogStoreError.fileSystem(url, operation: "write", errno: failure.code) }
    }
}
