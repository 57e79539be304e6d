import Foundation

@testable import LogStore

extension FuzzEntry {
    /// An archive file given as bytes: written to `file` (created or replaced), opened with the
    /// public API under small limits, then read a little (info, messages, tasks, bodies). Any
    /// failure must be a ``LogStoreError``, as ``LogStore/init(archiveURL:limits:configuration:)``
    /// promises, and the store must close.
    static func archive(_ data: Data, at file: URL) async -> String? {
        do {
            try data.write(to: file)
        } catch {
            return nil  // The harness's own temporary file, not the reader under test.
        }
        let limits = ArchiveLimits(maximumContentSize: 64 << 20, maximumInfoSize: 1 << 20, maximumBodySize: 4 << 20)
        let store: LogStore
        do {
            store = try await LogStore(archiveURL: file, limits: limits)
        } catch {
            return error is LogStoreError ? nil : "opening threw a \(type(of: error)): \(error)"
        }
        var finding: String?
        do {
            _ = try await store.info()
            let page = try await store.messages(MessageQuery(limit: 5))
            _ = page.messages.map(\.text)
            let tasks = try await store.tasks(TaskQuery(limit: 3))
            for task in tasks.tasks {
                _ = try await store.task(id: task.id)
            }
            for blob in try await store.blobs(limit: 3) {
                _ = try await store.blobData(forKey: blob.key)
            }
        } catch {
            if !(error is LogStoreError) { finding = "reading threw a \(type(of: error)): \(error)" }
        }
        do {
            try await store.close()
        } catch {
            finding = finding ?? (error is LogStoreError ? nil : "closing threw a \(type(of: error)): \(error)")
        }
        return finding
    }
}
