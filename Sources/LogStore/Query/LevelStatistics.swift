/// What `message_counts` says about a query over labels and a level range of warning and up:
/// enough to choose between walking each label's index entries and each level's.
///
/// Walking label X finds a match every `total(X) / matches(X)` entries; walking level L finds
/// one every `total(L) / matches(labels, L)`. Each arm stops after a page, so the cheaper plan
/// is the one whose arms pass fewer entries per match, summed over its arms.
struct LevelStatistics {
    /// Messages per label (all levels), per label within the range, per level within the range
    /// (all labels), and of the query's labels per level.
    private var labelTotals: [Int64: Int] = [:]
    private var labelMatches: [Int64: Int] = [:]
    private var levelTotals: [Int64: Int] = [:]
    private var levelMatches: [Int64: Int] = [:]

    init(
        connection: Connection, labelIDs: [Int64], levels: ClosedRange<LogStore.Level>, sessionIDs: [Int64]?
    ) throws {
        let wanted = Set(labelIDs)
        let levelRange = Int64(levels.lowerBound.rawValue)...Int64(levels.upperBound.rawValue)
        var sql = MessageCounts.perLabelAndLevelSQL
        if let sessionIDs {
            sql += " WHERE session_id IN (\(sessionIDs.map(String.init).joined(separator: ",")))"
        }
        sql += " GROUP BY label_id, level"
        let statement = try connection.prepare(sql)
        while try statement.step() {
            let label = statement.int64(at: 0)
            let level = statement.int64(at: 1)
            let count = statement.int(at: 2)
            let isWantedLabel = wanted.contains(label)
            if isWantedLabel { labelTotals[label, default: 0] += count }
            guard levelRange.contains(level) else { continue }
            levelTotals[level, default: 0] += count
            if isWantedLabel {
                labelMatches[label, default: 0] += count
                levelMatches[level, default: 0] += count
            }
        }
    }

    /// Whether label `label` has any message in the range (counts are exact, so a label
    /// without one needs no walk at all).
    func hasMatches(label: Int64) -> Bool {
        labelMatches[label, default: 0] > 0
    }

    /// Whether walking the levels passes fewer index entries than walking the labels.
    var prefersLevelWalk: Bool {
        let labelCost = labelTotals.reduce(0.0) { cost, entry in
            cost + Double(entry.value) / Double(max(labelMatches[entry.key, default: 0], 1))
        }
        let levelCost = levelTotals.reduce(0.0) { cost, entry in
            cost + Double(entry.value) / Double(max(levelMatches[entry.key, default: 0], 1))
        }
        return levelCost < labelCost
    }
}
