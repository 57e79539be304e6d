import Foundation
import Glibc
import Testing

@testable import LogStore

/// The inotify watch that wakes live tails on another process's commit (``DirectoryWriteWatch``):
/// writes to the watched files are reported, others are read and ignored, and a watched file
/// made after the watch began (a WAL made again) is seen too. Then the store's own watch: a
/// tail on a store watches its files.
@Suite("Directory write watch")
struct DirectoryWriteWatchTests {
    private func append(_ text: String, to url: URL) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0, "open \(url.path): errno \(errno)")
        defer { close(descriptor) }
        let written = text.utf8CString.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count - 1) }
        try #require(written == text.utf8.count)
    }

    @Test func reportsWritesToTheWatchedFilesOnly() async throws {
        try await withTemporaryDirectory { directory in
            let database = directory.appendingPathComponent("logs.sqlite")
            try append("", to: database)
            let watch = try DirectoryWriteWatch(directory: directory.path, names: ["logs.sqlite", "logs.sqlite-wal"])
            defer { watch.close() }
            #expect(!watch.drain())
            try append("page", to: directory.appendingPathComponent("other.txt"))
            #expect(!watch.drain())
            try append("page", to: database)
            #expect(watch.drain())
            #expect(!watch.drain())
            // Made after the watch began: a WAL the last connection's close had deleted.
            try append("frame", to: directory.appendingPathComponent("logs.sqlite-wal"))
            #expect(watch.drain())
        }
    }

    @Test func aMissingDirectoryIsAnError() {
        #expect(throws: Errno(code: ENOENT)) {
            try DirectoryWriteWatch(directory: "/nonexistent-\(UInt64.random(in: 0 ... .max))", names: ["x"])
        }
    }

    @Test func aTailWatchesTheStoresFiles() async throws {
        try await withTemporaryStore { store, _ in
            let watch = try #require(store.core.commitWatch)
            #expect(!watch.isWatchingFiles)
            // An iteration starts the watch; the files are watched from its first ask, on the
            // watch's queue.
            let iterator = try await store.tail().makeAsyncIterator()
            try await waitFor(seconds: 30) { watch.isWatchingFiles }
            withExtendedLifetime(iterator) {}
        }
    }
}
