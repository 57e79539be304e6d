import Foundation

/// The streaming exports' messages on two cores: a thread of its own steps the query and copies
/// each row out of SQLite (``CopiedMessageRows``), a chunk at a time, while the export's thread
/// formats and writes the chunk before. Formatting is about three quarters of a text export's
/// CPU and stepping the rest; one after the other, the export was slower than a C loop that
/// prints rows unformatted.
///
/// At most ``depth`` chunks exist, so memory stays bounded, and each is reused once written.
extension ExportSource {
    /// Rows per chunk: a handoff per chunk, not per row, and a chunk's bytes stay in cache.
    static let rowsPerChunk = 512

    /// Calls `row` with every selected message as its row, oldest first, the rows read on
    /// another thread; or, where no row is at hand (a query the full-text index serves), `message`
    /// with each as a ``LogStore/Message``, on this thread alone. Returns how many there were.
    @discardableResult
    func forEachMessage(row: (CopiedMessageRow) throws -> Void, message: (LogStore.Message) throws -> Void) throws -> Int {
        guard let query = options.messageQuery(pageSize: Self.pageSize) else { return 0 }
        let pipe = CopiedRowPipe()
        let reader = CopiedRowReader(connection: connection, query: query, pipe: pipe)
        let thread = Thread {
            ThreadName.setCurrent("logstore-export")
            reader.run()
        }
        thread.start()
        var count = 0
        do {
            while let chunk = try pipe.receive() {
                try chunk.forEach(row)
                count += chunk.count
                pipe.recycle(chunk)
            }
        } catch {
            pipe.cancel()
            pipe.waitUntilReaderEnds()
            throw error
        }
        pipe.waitUntilReaderEnds()
        guard pipe.rowsWereUnavailable else { return count }
        return try forEachMessage(message)
    }
}

/// The reading thread's side of ``ExportSource/forEachMessage(row:message:)``.
///
/// `@unchecked Sendable`: the connection is not. This thread alone uses it from its start until
/// it calls ``CopiedRowPipe/end(_:rowsWereUnavailable:)``; the export's thread waits for that
/// (``CopiedRowPipe/waitUntilReaderEnds()``, under the pipe's `NSCondition`) before it touches
/// the connection again, so the two never use it at once and the lock orders their accesses.
private struct CopiedRowReader: @unchecked Sendable {
    let connection: Connection
    let query: MessageQuery
    let pipe: CopiedRowPipe

    /// Thrown inside the row loop when the export's thread stopped taking chunks.
    private struct Stopped: Error {}

    func run() {
        var query = query
        do {
            guard var chunk = pipe.emptyChunk() else { throw Stopped() }
            while true {
                let page = try MessageRows.forEachRow(query, connection: connection) { row in
                    chunk.append(row)
                    if chunk.count >= ExportSource.rowsPerChunk {
                        guard pipe.send(chunk), let next = pipe.emptyChunk() else { throw Stopped() }
                        chunk = next
                    }
                }
                guard let page else {
                    // The index serves this query: every page would say so, and none was read.
                    pipe.end(nil, rowsWereUnavailable: true)
                    return
                }
                guard let next = page.nextCursor else { break }
                query.cursor = next
            }
            if chunk.count > 0 { guard pipe.send(chunk) else { throw Stopped() } }
            pipe.end(nil, rowsWereUnavailable: false)
        } catch is Stopped {
            pipe.end(nil, rowsWereUnavailable: false)
        } catch {
            pipe.end(error, rowsWereUnavailable: false)
        }
    }
}

/// The handoff between the two threads: filled chunks in order one way, emptied ones back.
///
/// `@unchecked Sendable`: every stored property is read and written with `condition` locked.
private final class CopiedRowPipe: @unchecked Sendable {
    /// Chunks in circulation at most: one being filled, one being written, one waiting.
    static let depth = 3
    private let condition = NSCondition()
    private var filled: [CopiedMessageRows] = []
    private var spare: [CopiedMessageRows] = []
    private var made = 0
    private var isCancelled = false
    private var hasEnded = false
    private var failure: (any Error)?
    private var unavailable = false

    /// Whether the reader found that no query page can be read as rows.
    var rowsWereUnavailable: Bool {
        condition.withLock { unavailable }
    }

    // MARK: The reader's side

    /// A chunk to fill, waiting while ``depth`` are in use; `nil` once the export stopped.
    func emptyChunk() -> CopiedMessageRows? {
        condition.withLock {
            while !isCancelled {
                if var chunk = spare.popLast() {
                    chunk.removeAll()
                    return chunk
                }
                if made < Self.depth {
                    made += 1
                    return CopiedMessageRows(rowCapacity: ExportSource.rowsPerChunk, byteCapacity: 128 << 10)
                }
                condition.wait()
            }
            return nil
        }
    }

    /// Hands a filled chunk over; `false` once the export stopped.
    func send(_ chunk: CopiedMessageRows) -> Bool {
        condition.withLock {
            guard !isCancelled else { return false }
            filled.append(chunk)
            condition.broadcast()
            return true
        }
    }

    /// The reader is done, with the error that stopped it if any.
    func end(_ error: (any Error)?, rowsWereUnavailable: Bool) {
        condition.withLock {
            failure = error
            unavailable = rowsWereUnavailable
            hasEnded = true
            condition.broadcast()
        }
    }

    // MARK: The export's side

    /// The next filled chunk, in order; `nil` after the last one; throws the reader's error once
    /// every chunk read before it was taken.
    func receive() throws -> CopiedMessageRows? {
        let (chunk, error): (CopiedMessageRows?, (any Error)?) = condition.withLock {
            while filled.isEmpty && !hasEnded { condition.wait() }
            if !filled.isEmpty { return (filled.removeFirst(), nil) }
            return (nil, failure)
        }
        if let error { throw error }
        return chunk
    }

    /// Gives a written chunk back for reuse.
    func recycle(_ chunk: CopiedMessageRows) {
        condition.withLock {
            spare.append(chunk)
            condition.broadcast()
        }
    }

    /// The export stopped (its own error): the reader stops at its next handoff.
    func cancel() {
        condition.withLock {
            isCancelled = true
            condition.broadcast()
        }
    }

    /// Returns once the reader has ended, so the connection is this thread's again.
    func waitUntilReaderEnds() {
        condition.withLock {
            while !hasEnded { condition.wait() }
        }
    }
}
