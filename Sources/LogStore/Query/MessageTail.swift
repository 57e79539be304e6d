/// The live tail of a store: every message matching a query as it is committed, by this
/// process or another one writing the same store. Made by ``LogStore/tail(_:from:onGap:)``;
/// see there for what it yields and when it ends.
///
/// Each iteration (`makeAsyncIterator()`) follows the store on its own, from the start the
/// tail was made with.
public struct MessageTail: AsyncSequence, Sendable {
    /// Each element is a committed message matching the tail's query.
    public typealias Element = LogStore.Message
    /// A tail throws when reading the store fails (a ``LogStoreError``).
    public typealias Failure = any Error

    /// The most messages read ahead of the consumer: the store is the buffer, not memory.
    public static let pageSize = 256

    let store: any TailedStore
    let query: MessageQuery
    let position: TailPosition
    let startGap: TailGap?
    let onGap: (@Sendable (TailGap) -> Void)?

    /// Starts following the store from the tail's start, independently of other iterators.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: TailReader(
            store: store, query: query, position: position, pendingGap: startGap, onGap: onGap))
    }

    /// Reads the tail: ``next()`` returns the next message, waiting for one to be committed;
    /// `nil` once the consuming task is cancelled or the store closed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let reader: TailReader

        /// The next matching message, waiting until one is committed.
        ///
        /// - Returns: `nil` when the task is cancelled or the store closed.
        /// - Throws: ``LogStoreError/database(_:)`` when reading fails.
        public mutating func next() async throws -> LogStore.Message? {
            try await reader.next()
        }
    }
}

/// The state of one iteration of a ``MessageTail``: the page read ahead and the position after
/// it. Owned by its iterator, used by one task at a time, so it needs no lock.
final class TailReader {
    private let store: any TailedStore
    private let query: MessageQuery
    private let onGap: (@Sendable (TailGap) -> Void)?
    private var position: TailPosition
    private var pendingGap: TailGap?
    private var page: [LogStore.Message] = []
    private var index = 0
    private var isFinished = false

    init(
        store: any TailedStore, query: MessageQuery, position: TailPosition, pendingGap: TailGap?,
        onGap: (@Sendable (TailGap) -> Void)?
    ) {
        self.store = store
        self.query = query
        self.position = position
        self.pendingGap = pendingGap
        self.onGap = onGap
        store.startWatchingCommits()
    }

    deinit {
        if !isFinished { store.stopWatchingCommits() }
    }

    nonisolated(nonsending) func next() async throws -> LogStore.Message? {
        while true {
            guard !isFinished else { return nil }
            if Task.isCancelled || store.commits.isFinished { return finish() }
            if let gap = pendingGap {
                pendingGap = nil
                onGap?(gap)
            }
            if index < page.count {
                defer { index += 1 }
                return page[index]
            }
            // Read before reading the store: a commit during the read then ends the wait at once.
            let generation = store.commits.generation
            let read: TailRows.Read
            do {
                read = try await store.read { [query, position] connection in
                    try TailRows.read(query, after: position, pageSize: MessageTail.pageSize, connection: connection)
                }
            } catch LogStoreError.closed {
                return finish()
            } catch {
                _ = finish()
                throw error
            }
            position = read.position
            pendingGap = read.gap
            page = read.messages
            index = 0
            if page.isEmpty && pendingGap == nil {
                // An archive never grows: its tail ends once it has been read.
                if store.neverChanges { return finish() }
                await store.commits.wait(after: generation)
            }
        }
    }

    private func finish() -> LogStore.Message? {
        if !isFinished {
            isFinished = true
            page = []
            store.stopWatchingCommits()
        }
        return nil
    }
}
