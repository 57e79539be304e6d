import Foundation
import Testing

/// A fresh directory under the system's temporary directory, removed when `body` ends; every
/// test gets its own, so tests run in parallel.
func withTemporaryDirectory<T>(
    _ body: (URL) async throws -> T, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> T {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("logstore-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer {
        // Tests may leave read-only modes behind; make everything removable again.
        _ = try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
        try? FileManager.default.removeItem(at: url)
    }
    return try await body(url)
}

/// A store URL inside a fresh temporary directory (the store itself does not exist yet).
func withTemporaryStoreURL<T>(_ body: (URL) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { directory in
        try await body(directory.appendingPathComponent("test.logstore", isDirectory: true))
    }
}
