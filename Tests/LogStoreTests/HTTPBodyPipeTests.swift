import Foundation
import Synchronization
import Testing

@testable import LogStoreConsole

/// The pipe a mounted console's streamed bodies go through (into Hummingbird's writer): every
/// chunk arrives in order, writers wait while it is full, and a failed reader ends them.
@Suite struct HTTPBodyPipeTests {
    @Test func deliversEveryWritersChunksInOrderThenEnds() async throws {
        let pipe = HTTPBodyPipe(capacity: 64)
        let producers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<2 {
                    group.addTask {
                        for index in 0..<500 { try await pipe.write(Array("\(writer):\(index);".utf8)) }
                    }
                }
                try await group.waitForAll()
            }
            pipe.finish()
        }
        var received: [UInt8] = []
        while let chunk = await pipe.read() { received += chunk }
        try await producers.value
        let items = String(decoding: received, as: UTF8.self).split(separator: ";")
        #expect(items.count == 1000)
        for writer in ["0", "1"] {
            let indexes = items.filter { $0.hasPrefix(writer + ":") }.compactMap { Int($0.dropFirst(2)) }
            #expect(indexes == Array(0..<500))
        }
    }

    @Test func aWriterWaitsWhileThePipeIsFull() async throws {
        let pipe = HTTPBodyPipe(capacity: 10)
        let written = Atomic<Int>(0)
        let producer = Task {
            for _ in 0..<3 {
                try await pipe.write(Array(repeating: 1, count: 8))
                written.add(1, ordering: .relaxed)
            }
            pipe.finish()
        }
        // 8 bytes fit; the second write passes 10 and waits for the reader.
        let deadline = ContinuousClock.now + .seconds(30)
        while written.load(ordering: .relaxed) == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(written.load(ordering: .relaxed) == 1)
        var total = 0
        while let chunk = await pipe.read() { total += chunk.count }
        try await producer.value
        #expect(total == 24)
        #expect(written.load(ordering: .relaxed) == 3)
    }

    @Test func aFailedReaderEndsWaitingAndLaterWrites() async throws {
        let pipe = HTTPBodyPipe(capacity: 4)
        let producer = Task { () -> (any Error)? in
            do {
                while true { try await pipe.write([1, 2, 3, 4, 5]) }
            } catch {
                return error
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        pipe.fail()
        let error = await producer.value
        #expect(error as? HTTPBodyWriteError == .peerClosed)
        await #expect(throws: HTTPBodyWriteError.peerClosed) { try await pipe.write([1]) }
        #expect(await pipe.read() == nil)
    }

    @Test func aWaitingWriterEndsWhenItsTaskIsCancelled() async throws {
        let pipe = HTTPBodyPipe(capacity: 1)
        let producer = Task { () -> (any Error)? in
            do {
                try await pipe.write([1, 2])
                try await pipe.write([3, 4])
                return nil
            } catch {
                return error
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        producer.cancel()
        #expect(await producer.value is CancellationError)
    }
}
