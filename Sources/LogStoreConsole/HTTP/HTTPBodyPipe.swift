import Synchronization

/// Hands a streamed body from its writers (any number of tasks, as the live tail's messages and
/// heartbeats are) to one reader that sends it elsewhere — another server's response writer,
/// when the console's routes are mounted in an application. Bounded: a write waits while
/// `capacity` bytes are queued, so a slow client holds the producer back instead of memory.
///
/// ``finish()`` (the producer is done) lets the reader drain and end; ``fail(_:)`` (the reader
/// cannot go on: the client is gone) makes every waiting and later write throw, which is how a
/// never-ending body learns to end.
final class HTTPBodyPipe: HTTPBodyWriter, Sendable {
    private struct State {
        var chunks: [[UInt8]] = []
        var queuedBytes = 0
        var finished = false
        var failure: HTTPBodyWriteError?
        var reader: CheckedContinuation<[UInt8]?, Never>?
        var writers: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextWriterID = 0
    }

    private let state = Mutex(State())
    private let capacity: Int

    /// A pipe queuing at most about `capacity` bytes (one write may pass it).
    init(capacity: Int = 256 * 1024) {
        self.capacity = capacity
    }

    /// Queues `bytes` for the reader; waits while the queue is full.
    /// - Throws: ``HTTPBodyWriteError/peerClosed`` (or what ``fail(_:)`` was given) once the pipe failed, or `CancellationError`
    ///   when the writing task is cancelled while it waits.
    func write(_ bytes: [UInt8]) async throws {
        let (mustWait, id) = try state.withLock { state throws -> (Bool, Int) in
            if let failure = state.failure { throw failure }
            state.chunks.append(bytes)
            state.queuedBytes += bytes.count
            if let reader = state.reader {
                state.reader = nil
                let chunk = state.chunks.removeFirst()
                state.queuedBytes -= chunk.count
                reader.resume(returning: chunk)
            }
            state.nextWriterID += 1
            return (state.queuedBytes > capacity, state.nextWriterID)
        }
        guard mustWait else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let resumeNow: (any Error)?? = state.withLock { state in
                    if let failure = state.failure { return .some(failure) }
                    if Task.isCancelled { return .some(CancellationError()) }
                    if state.queuedBytes <= capacity { return .some(nil) }
                    state.writers.append((id, continuation))
                    return .none
                }
                switch resumeNow {
                case .some(.some(let error)): continuation.resume(throwing: error)
                case .some(.none): continuation.resume()
                case .none: break
                }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                state.writers.firstIndex { $0.id == id }.map { state.writers.remove(at: $0).continuation }
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    /// The next chunk, waiting for one; nil once the producer finished and all was read, or
    /// the pipe failed. One reader only.
    func read() async -> [UInt8]? {
        await withCheckedContinuation { continuation in
            let (chunk, room) = state.withLock { state -> ([UInt8]??, [CheckedContinuation<Void, any Error>]) in
                if state.failure != nil { return (.some(nil), []) }
                guard !state.chunks.isEmpty else {
                    if state.finished { return (.some(nil), []) }
                    state.reader = continuation
                    return (.none, [])
                }
                let chunk = state.chunks.removeFirst()
                state.queuedBytes -= chunk.count
                guard state.queuedBytes <= capacity else { return (.some(chunk), []) }
                let waking = state.writers.map(\.continuation)
                state.writers.removeAll()
                return (.some(chunk), waking)
            }
            for writer in room { writer.resume() }
            if case .some(let chunk) = chunk { continuation.resume(returning: chunk) }
        }
    }

    /// The producer is done: the reader gets what is queued, then nil.
    func finish() {
        let reader = state.withLock { state in
            state.finished = true
            defer { state.reader = nil }
            return state.chunks.isEmpty ? state.reader : nil
        }
        reader?.resume(returning: nil)
    }

    /// The reader cannot go on: drops what is queued; every waiting and later write throws
    /// `error`, and a waiting read returns nil.
    func fail(_ error: HTTPBodyWriteError = .peerClosed) {
        let (reader, writers) = state.withLock { state in
            state.failure = error
            state.chunks.removeAll()
            state.queuedBytes = 0
            defer {
                state.reader = nil
                state.writers.removeAll()
            }
            return (state.reader, state.writers.map(\.continuation))
        }
        reader?.resume(returning: nil)
        for writer in writers { writer.resume(throwing: error) }
    }
}
