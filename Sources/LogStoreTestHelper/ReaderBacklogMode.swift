// Who copies the WAL a long reader held back (WALCheckpointTests).
//
//     LogStoreTestHelper reader-backlog <store> <count>
//
// Opens the store with a 16 MB size limit (a WAL bound of 1 MB), logs 2,000 messages, then
// begins a read that holds one snapshot while it logs `count` more (about 330 bytes each): the
// WAL grows by all of them, since no checkpoint copies past the reader. It lets the reader go,
// logs 3,000 more and flushes, then waits (at most 60 s) until the checkpoint thread has written
// a third of what the WAL held (a page changed by many transactions is copied once). One store
// in this process, so its threads are the only ones named `logstore-writer` and `logstore-ckpt`:
// their write bytes (`wchar` in /proc/self/task/*/io) tell who copied. Prints one line:
//     result wal=<bytes held at release> writer=<its bytes from release to flush> ckpt=<the thread's>
import Dispatch
import Foundation
import LogStore
import Synchronization

func runReaderBacklogMode(arguments: [String]) async -> Never {
    guard arguments.count == 4, let count = Int(arguments[3]) else {
        FileHandle.standardError.write(Data("usage: LogStoreTestHelper reader-backlog <store> <count>\n".utf8))
        exit(64)
    }
    let url = URL(fileURLWithPath: arguments[2])
    var configuration = LogStore.Configuration()
    configuration.sizeLimit = 16_000_000
    configuration.overflowPolicy = .waitForSpace
    do {
        let store = try await LogStore(storeURL: url, options: [.create], configuration: configuration)
        let padding = String(repeating: "x", count: 280)
        func log(_ count: Int, _ label: String) {
            for index in 0..<count { store.storeMessage(label: label, level: .info, message: "\(label) \(index) \(padding)") }
        }
        log(2_000, "before")
        try await store.flush()

        let holding = Atomic(false)
        let release = DispatchSemaphore(value: 0)
        let reader = Task {
            try await store.read { db in
                _ = try db.rows("BEGIN")
                _ = try db.scalar("SELECT count(*) FROM messages")
                holding.store(true, ordering: .releasing)
                return release.wait(timeout: .now() + 120) == .success
            }
        }
        try await waitUntil(seconds: 30) { holding.load(ordering: .acquiring) }
        log(count, "held")
        try await store.flush()
        let wal = fileSize(url.appendingPathComponent("logs.sqlite-wal"))
        // Read before the release: the thread may begin copying the moment the reader ends.
        let writerBefore = writtenBytes(threadsNamed: "logstore-writer")
        let threadBefore = writtenBytes(threadsNamed: "logstore-ckpt")
        release.signal()
        guard try await reader.value else { throw HelperFailure("the reader was not released") }

        log(3_000, "after")
        try await store.flush()
        let writer = writtenBytes(threadsNamed: "logstore-writer") - writerBefore
        try await waitUntil(seconds: 60) { writtenBytes(threadsNamed: "logstore-ckpt") - threadBefore >= wal / 3 }
        let thread = writtenBytes(threadsNamed: "logstore-ckpt") - threadBefore
        try await store.close()
        print("result wal=\(wal) writer=\(writer) ckpt=\(thread)")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("reader-backlog: \(error)\n".utf8))
        exit(1)
    }
}

private struct HelperFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

