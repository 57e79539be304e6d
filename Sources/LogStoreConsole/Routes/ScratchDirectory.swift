import Foundation
import Glibc

/// The console's own directory for downloads being served: owner-only (exports hold the
/// store's secrets), in the system's temporary directory, removed when the console stops.
enum ScratchDirectory {
    /// Creates one.
    /// - Throws: a `CocoaError` when the temporary directory is not writable.
    static func make() throws -> URL {
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("logstore-console.XXXXXX").path
        var bytes = Array(template.utf8CString)
        let made = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
        }
        guard let made else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: template, "errno": errno])
        }
        // mkdtemp creates it 0700.
        return URL(fileURLWithPath: made, isDirectory: true)
    }

    /// Removes it with what is left in it.
    static func remove(_ directory: URL) {
        // Nothing a user could act on: the system's cleanup of its temporary directory gets
        // what this could not remove.
        try? FileManager.default.removeItem(at: directory)
    }
}
