
/// Tells a search the caller wrote wrong from a full-text index that is damaged.
///
/// SQLite reports both with its generic error while the statement runs: FTS5 parses the bound
/// `MATCH` text only then, and it reads its own configuration and segments then too ("invalid
/// fts5 file format", a bad structure record). The code cannot tell them apart, and FTS5's
/// syntax errors do not all name it (`unterminated string`, `no such column: x`), so the same
/// expression is matched against an empty FTS5 table with the same columns in memory: FTS5
/// refusing it there is the caller's mistake; accepting it, with FTS5 named in the failure, is
/// damage of the store's index. Anything else (a failure of the rest of the query) stays as it
/// is. Only on this error path.
enum SearchFailure {
    /// The index of the store (or archive) failed while the expression is sound.
    struct DamagedIndex: Error {
        let message: String
    }

    /// What a failed search should throw: ``LogStoreError/invalidArgument(_:)`` when FTS5 refuses
    /// `expression` itself (only when the caller wrote it in FTS5 syntax: a plain search is
    /// always valid), ``DamagedIndex`` when the index failed, or `error` as it is otherwise.
    static func classify(
        _ error: DatabaseError, expression: String?, columns: [String], callerSyntax: Bool, describing search: String
    ) -> any Error {
        guard let expression, error.isGenericError else { return error }
        switch check(expression, columns: columns) {
        case .refused(let reason) where callerSyntax:
            return LogStoreError.invalidArgument("\(search) is not a valid FTS5 query: \(reason)")
        case .accepted where error.message.localizedCaseInsensitiveContains("fts5"):
            return DamagedIndex(message: error.message)
        case .accepted, .refused, .unknown:
            return error
        }
    }

    private enum Check {
        case accepted
        case refused(String)
        /// The probe itself failed (no memory): the original error stands.
        case unknown
    }

    /// Matches `expression` against an empty in-memory FTS5 table with `columns`.
    private static func check(_ expression: String, columns: [String]) -> Check {
        do {
            let probe = try Connection(path: ":memory:", mode: .readWrite(create: true))
            defer { probe.close() }
            try probe.execute("CREATE VIRTUAL TABLE probe USING fts5(\(columns.joined(separator: ", ")))")
            do {
                _ = try probe.integer("SELECT count(*) FROM probe WHERE probe MATCH ?", [.text(expression)])
                return .accepted
            } catch {
                return .refused(error.message)
            }
        } catch {
            return .unknown
        }
    }
}
