/// `id_floors` (``Schema/version11``): the largest message and task ids ever given out, so no
/// id is given out twice. SQLite gives a new row the id after the largest left in its table,
/// which after the newest rows are deleted (``LogStore/removeAll()``, a sweep of everything)
/// would be one of theirs: the full-text index's partitions may still hold a deleted message's
/// words under its id, and history's consumers are keyed on ids.
///
/// The steps that delete record the floor first; the writer reads ``nextIDsSQL`` once per
/// transaction and gives its first message and task the ids it returns.
enum IDFloors {
    /// Records the largest message id given out so far, before messages are deleted.
    static let recordMessagesSQL = """
        UPDATE id_floors SET last_id = max(last_id, coalesce((SELECT max(id) FROM messages), 0)) WHERE name = 'messages'
        """

    /// Records the largest task id given out so far, before tasks are deleted.
    static let recordTasksSQL = """
        UPDATE id_floors SET last_id = max(last_id, coalesce((SELECT max(id) FROM tasks), 0)) WHERE name = 'tasks'
        """

    /// The ids the next message and task must have, each `NULL` when SQLite's own choice is
    /// above every id given out (almost always). A message's floor is also the index's reach:
    /// every id it covers was given out.
    static let nextIDsSQL = """
        SELECT CASE WHEN coalesce((SELECT max(id) FROM messages), 0) < m.floor THEN m.floor + 1 END,
               CASE WHEN coalesce((SELECT max(id) FROM tasks), 0) < t.last_id THEN t.last_id + 1 END
        FROM (SELECT max(f.last_id, s.indexed_through) AS floor FROM id_floors AS f, search_state AS s
              WHERE f.name = 'messages' AND s.id = 1) AS m,
             (SELECT last_id FROM id_floors WHERE name = 'tasks') AS t
        """

    /// The ids the next message and task must have (``nextIDsSQL``); both `nil` for a schema
    /// without `id_floors`.
    static func nextIDs(_ connection: Connection) throws(DatabaseError) -> (message: Int64?, task: Int64?) {
        let statement = try connection.cachedStatement(nextIDsSQL)
        defer { statement.reset() }
        guard try statement.step() else { return (nil, nil) }
        return (statement.isNull(at: 0) ? nil : statement.int64(at: 0), statement.isNull(at: 1) ? nil : statement.int64(at: 1))
    }
}
