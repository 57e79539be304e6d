import Dispatch
import Foundation
import LogStore
import Testing

@Suite("Thread names")
struct ThreadNameTests {
    /// Logs one message from `body`'s thread and returns it as stored.
    static func storedMessage(
        _ store: LogStore, logging: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
    ) async throws -> LogStore.Message {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            logging {
                store.storeMessage(label: "thread", level: .info, message: "hello")
                continuation.resume()
            }
        }
        try await store.flush()
        return try #require(try await allMessages(store).last)
    }

    @Test func aTaskRecordsItsRootQueuesFullLabel() async throws {
        try await withTemporaryStore { store, _ in
            let message = try await Self.storedMessage(store) { log in Task.detached { log() } }
            // Swift concurrency's threads are libdispatch workers; the kernel keeps only the
            // label's last 15 bytes ("oot.default-qos").
            let name = try #require(message.threadName)
            #expect(name.hasPrefix("com.apple.root."), "\(name)")
            #expect(name.hasSuffix("-qos"), "\(name)")
            #expect(message.threadID != 0)
        }
    }

    @Test func aSerialQueuesWorkerIsNotGivenACutLabel() async throws {
        try await withTemporaryStore { store, _ in
            let queue = DispatchQueue(label: "com.example.thread-name-test")
            let message = try await Self.storedMessage(store) { log in queue.async { log() } }
            // Every overcommit pool cuts to "-qos.overcommit": no certain name, so none.
            #expect(message.threadName == nil || message.threadName?.hasPrefix("com.apple.root.") == true,
                    "\(message.threadName ?? "")")
        }
    }

    @Test func aNamedThreadKeepsItsNameEvenAtTheKernelsLength() async throws {
        try await withTemporaryStore { store, _ in
            for name in ["ingest-worker", "fifteen-bytes-1"] {
                let message = try await Self.storedMessage(store) { log in
                    Thread {
                        // The kernel's thread name (what `top -H` shows); Foundation's
                        // `Thread.name` does not reach it on Linux.
                        try? Data(name.utf8).write(to: URL(fileURLWithPath: "/proc/thread-self/comm"))
                        log()
                    }.start()
                }
                #expect(message.threadName == name)
            }
        }
    }
}
