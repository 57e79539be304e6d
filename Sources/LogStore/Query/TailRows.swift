import Foundation

/// Where a live tail stands in the `messages` table. Every row with an id up to ``lastID`` has
/// been read (yielded, or seen not to match); what follows is read by ``TailRows/read(_:after:pageSize:connection:)``.
struct TailPosition: Sendable, Equatable {
    var lastID: Int64
    /// `created_at` of the row at ``lastID`` when the tail saw it: if another row holds that id
    /// later (or none does and the table ends below it), the newest rows were removed and
    /// SQLite gave their ids to new rows (`INTEGER PRIMARY KEY` takes the largest id plus one).
    var lastCreatedAt: Double?
    /// A match the tail knows was committed after ``lastID`` but has not read (it reads at most a
    /// page ahead): if it is gone at the next read, the gap starts there.
    var nextMatch: Int64?
    /// The largest id at the last read.
    var newestID: Int64
}

/// The SQL of the live tail: where it starts, and each read after a position, through the
/// query engine (``MessageRows``) so every filter of ``MessageQuery`` applies.
enum TailRows {
    /// One read: the next messages, a gap found on the way, and the position after them.
    struct Read: Sendable {
        var messages: [LogStore.Message]
        var gap: TailGap?
        var position: TailPosition
    }

    /// The position a tail starts from (with a gap when resuming after a cursor the sweep has
    /// passed), in one read transaction.
    static func start(
        _ query: MessageQuery, from start: TailStart, pageSize: Int, connection: Connection
    ) throws -> (position: TailPosition, gap: TailGap?) {
        try connection.transaction(.deferred) {
            let newest = try newestRow(connection)
            let now = TailPosition(lastID: newest.id, lastCreatedAt: newest.createdAt, nextMatch: nil, newestID: newest.id)
            switch start {
            case .now:
                return (now, nil)
            case .last(let count):
                guard count > 0, let oldest = try oldestOfNewest(count, query, pageSize: pageSize, connection: connection)
                else { return (now, nil) }
                let before = oldest - 1
                return (TailPosition(
                    lastID: before, lastCreatedAt: try createdAt(before, connection), nextMatch: oldest,
                    newestID: newest.id), nil)
            case .after(let cursor):
                let lastID = cursor.lastID
                let lastCreatedAt = try createdAt(lastID, connection)
                var gap: TailGap?
                if lastCreatedAt == nil, lastID < newest.id,
                   let next = try connection.integer(Messages.firstIDAfterSQL, [.integer(lastID)]),
                   next > lastID + 1,
                   try connection.integer(Messages.oldestIDSQL) == next {
                    // The cursor's row is gone and so is everything up to the oldest row left:
                    // the sweep went past it while nobody tailed.
                    gap = TailGap(skippedIDs: (lastID + 1)...(next - 1))
                }
                return (TailPosition(lastID: lastID, lastCreatedAt: lastCreatedAt, nextMatch: nil, newestID: newest.id), gap)
            }
        }
    }

    /// The messages matching `query` after `position`, at most `pageSize`, in id order, read in
    /// one read transaction (which ends before this returns: the writer's checkpoints never
    /// wait for a tail between reads).
    static func read(
        _ query: MessageQuery, after position: TailPosition, pageSize: Int, connection: Connection
    ) throws -> Read {
        try connection.transaction(.deferred) {
            let newest = try newestRow(connection)
            var position = position
            var gap: TailGap?

            // The newest rows removed and their ids handed out again (removeAll, or
            // removeSessions of the newest session): go back to the newest row from before.
            if position.lastID > 0, let known = position.lastCreatedAt {
                let current = try createdAt(position.lastID, connection)
                let isReused = current.map { $0 != known } ?? (newest.id < position.lastID)
                if isReused {
                    if let next = position.nextMatch {
                        gap = TailGap(skippedIDs: next...max(next, position.newestID))
                    }
                    // Rows are committed in logging order: those logged after the known row
                    // are the new ones. The walk goes back over new rows only.
                    let resume = try connection.integer(
                        Messages.lastIDAtOrBeforeSQL,
                        [.integer(min(position.lastID, newest.id)), .real(known)]) ?? 0
                    position = TailPosition(
                        lastID: resume, lastCreatedAt: try createdAt(resume, connection), nextMatch: nil,
                        newestID: newest.id)
                }
            }
            if newest.id < position.lastID {
                // Past the end with no row to compare: the store was emptied since (and SQLite
                // numbers from 1 again) or the cursor is from another store. Everything left
                // is yielded: a repeat is better than a silent loss.
                position = TailPosition(lastID: 0, lastCreatedAt: nil, nextMatch: nil, newestID: newest.id)
            }

            var pageQuery = query
            pageQuery.order = .oldestFirst
            pageQuery.cursor = MessageQuery.Cursor(lastID: position.lastID)
            // One more than a page: the extra one is the next match, what a gap is measured by.
            pageQuery.limit = pageSize + 1
            var messages = try MessageRows.page(pageQuery, connection: connection).messages

            if gap == nil, let next = position.nextMatch, (messages.first?.id ?? .max) > next {
                // The match the tail knew of is gone, and with it every match up to the next one left.
                let upper = messages.first.map { $0.id - 1 } ?? max(next, position.newestID)
                gap = TailGap(skippedIDs: next...max(next, upper))
            }

            if messages.count > pageSize {
                let following = messages[pageSize].id
                messages.removeLast(messages.count - pageSize)
                let last = messages[pageSize - 1].id
                position = TailPosition(
                    lastID: last, lastCreatedAt: try createdAt(last, connection), nextMatch: following,
                    newestID: newest.id)
            } else {
                // Every match up to the newest row is read: the next read starts past it, so a
                // selective query does not scan the same rows again.
                position = TailPosition(lastID: newest.id, lastCreatedAt: newest.createdAt, nextMatch: nil, newestID: newest.id)
            }
            return Read(messages: messages, gap: gap, position: position)
        }
    }

    private static func newestRow(_ connection: Connection) throws -> (id: Int64, createdAt: Double?) {
        let statement = try connection.cachedStatement(Messages.newestSQL)
        defer { statement.reset() }
        guard try statement.step() else { return (0, nil) }
        return (statement.int64(at: 0), statement.double(at: 1))
    }

    private static func createdAt(_ id: Int64, _ connection: Connection) throws -> Double? {
        guard id > 0 else { return nil }
        return try connection.real(Messages.createdAtSQL, [.integer(id)])
    }

    /// The id of the oldest of the newest `count` matches (fewer when fewer match), reading a
    /// page at a time so memory stays bounded whatever `count` is.
    private static func oldestOfNewest(
        _ count: Int, _ query: MessageQuery, pageSize: Int, connection: Connection
    ) throws -> Int64? {
        var pageQuery = query
        pageQuery.order = .newestFirst
        pageQuery.cursor = nil
        var remaining = count
        var oldest: Int64?
        while remaining > 0 {
            pageQuery.limit = min(remaining, pageSize)
            let page = try MessageRows.page(pageQuery, connection: connection)
            guard let last = page.messages.last else { break }
            oldest = last.id
            remaining -= page.messages.count
            guard let next = page.nextCursor else { break }
            pageQuery.cursor = next
        }
        return oldest
    }
}
