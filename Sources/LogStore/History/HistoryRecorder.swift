import Foundation

/// Collects what one write transaction does to each entity, and writes it to `history` before
/// the transaction commits: one row per entity and operation, in the order they first happened.
/// Confined to the writer thread, like the ``BatchWriter`` that owns it.
final class HistoryRecorder {
    /// The author the rows are written under (`history_authors.id`).
    let authorID: Int64
    /// The fields deletions keep, for the entities that keep some (checked at open).
    let tombstoneFields: [HistoryEntity: HistoryTombstoneFields]
    /// Whether a transaction moves the author's cursor past its own changes when the cursor
    /// was caught up (its own changes are not delivered to it, so nothing is skipped).
    let movesCursorPastOwnChanges: Bool
    /// The transaction's changes in the order their keys first came; a handful at most, so a
    /// linear search, with the last key tried first (the writer's case: a run of inserts).
    private var entries: [(key: Key, ids: IDRanges)] = []
    private var lastIndex = 0
    /// Per delete key, the tombstones collected so far (at most
    /// ``HistoryConfiguration/tombstonesPerChange``).
    private var tombstones: [Key: [HistoryTombstone]] = [:]

    struct Key: Hashable {
        let entity: HistoryEntity
        let operation: HistoryOperation
    }

    init(
        authorID: Int64, tombstoneFields: [HistoryEntity: HistoryTombstoneFields] = [:],
        movesCursorPastOwnChanges: Bool = true
    ) {
        self.authorID = authorID
        self.tombstoneFields = tombstoneFields
        self.movesCursorPastOwnChanges = movesCursorPastOwnChanges
    }

    private func index(of key: Key) -> Int {
        if lastIndex < entries.count, entries[lastIndex].key == key { return lastIndex }
        if let found = entries.firstIndex(where: { $0.key == key }) {
            lastIndex = found
        } else {
            entries.append((key, IDRanges()))
            lastIndex = entries.count - 1
        }
        return lastIndex
    }

    /// Notes the deletion of the row a tombstone describes, keeping the tombstone while the
    /// transaction's change of that entity holds fewer than the cap.
    func recordDeletion(_ entity: HistoryEntity, _ tombstone: HistoryTombstone) {
        record(entity, .delete, id: tombstone.id)
        let key = Key(entity: entity, operation: .delete)
        if tombstones[key, default: []].count < HistoryConfiguration.tombstonesPerChange {
            tombstones[key, default: []].append(tombstone)
        }
    }

    /// Notes the deletion of the row a `DELETE … RETURNING id<fields.returningSQL>` has just
    /// returned, with its tombstone when the entity keeps `fields`.
    func recordDeletion(_ entity: HistoryEntity, of statement: Statement, keeping fields: HistoryTombstoneFields?) {
        let kept = tombstones[Key(entity: entity, operation: .delete)]?.count ?? 0
        if let fields, kept < HistoryConfiguration.tombstonesPerChange {
            recordDeletion(entity, fields.tombstone(from: statement))
        } else {
            record(entity, .delete, id: statement.int64(at: 0))
        }
    }

    /// The ids of `entity` this transaction did `operation` to so far.
    func ids(_ entity: HistoryEntity, _ operation: HistoryOperation) -> IDRanges? {
        let key = Key(entity: entity, operation: operation)
        return entries.first { $0.key == key }?.ids
    }

    /// Notes that the transaction did `operation` to the row `id` of `entity`.
    func record(_ entity: HistoryEntity, _ operation: HistoryOperation, id: Int64) {
        entries[index(of: Key(entity: entity, operation: operation))].ids.insert(id)
    }

    /// Notes a run of ids at once (a range the sweep deleted whole).
    func record(_ entity: HistoryEntity, _ operation: HistoryOperation, ids: ClosedRange<Int64>) {
        entries[index(of: Key(entity: entity, operation: operation))].ids.insert(ids)
    }

    /// Writes the transaction's rows; call inside the transaction, just before its commit.
    func flush(_ connection: Connection, at date: Date = Date()) throws {
        guard !entries.isEmpty else { return }
        defer { discard() }
        // The next seq AUTOINCREMENT would give, taken inside the write transaction: the rows
        // get consecutive numbers, the first of which names the transaction.
        let last = try connection.integer(HistoryTables.lastSequenceSQL) ?? 0
        let insert = try connection.cachedStatement(HistoryTables.insertSQL)
        let transaction = last + 1
        var written = last
        for (offset, (key, ids)) in entries.enumerated() where !ids.isEmpty {
            written = transaction + Int64(offset)
            insert.bind(transaction + Int64(offset), at: 1)
            insert.bind(transaction, at: 2)
            insert.bind(authorID, at: 3)
            insert.bind(date.timeIntervalSince1970, at: 4)
            insert.bind(Int64(key.entity.rawValue), at: 5)
            insert.bind(Int64(key.operation.rawValue), at: 6)
            ids.encoded.withUnsafeBytes { insert.bind($0, at: 7) }
            insert.bind(Int64(ids.count), at: 8)
            if let kept = tombstones[key], !kept.isEmpty {
                // In id order, whatever order the rows went in.
                let sorted = kept.sorted { $0.id < $1.id }
                do {
                    insert.bind(String(decoding: try StoreJSON.compactEncoder.encode(sorted), as: UTF8.self), at: 9)
                } catch {
                    throw DatabaseError(message: "history tombstones could not be encoded: \(error)", sql: nil)
                }
            } else {
                insert.bindNull(at: 9)
            }
            try insert.run()
        }
        if movesCursorPastOwnChanges && written > last {
            // Only when it was caught up: another author's change before this transaction,
            // not consumed yet, keeps the cursor where it is.
            try connection.cachedStatement(HistoryTables.moveCursorPastSQL)
                .bindAndRun([.integer(written), .integer(authorID), .integer(last)])
        }
    }

    /// Forgets what was collected (after a flush, or for a rolled-back transaction).
    func discard() {
        entries.removeAll(keepingCapacity: true)
        lastIndex = 0
        tombstones.removeAll(keepingCapacity: true)
    }
}
