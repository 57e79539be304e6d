/// "Did you mean …?": the known name closest to a mistyped one.
enum Suggestion {
    /// The candidate nearest to `typed` (fewest single-character edits, two swapped neighbours
    /// counting as one: `tial` is one edit from `tail`), when it is near enough to be a typo:
    /// at most 2 edits, and fewer than half of its length.
    static func nearest(_ typed: String, among candidates: [String]) -> String? {
        let typed = typed.drop { $0 == "-" }.lowercased()
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(Array(typed), Array(candidate.lowercased()))
            if distance <= 2, distance * 2 < max(candidate.count, 1), distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// The optimal string alignment distance: Levenshtein's insertions, deletions and
    /// substitutions, plus the swap of two neighbours as one edit (the commonest typo, which
    /// Levenshtein counts as two), with the two previous rows of memory.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var older = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var row = previous
        for i in 1...a.count {
            row[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    row[j] = min(row[j], older[j - 2] + 1)
                }
            }
            (older, previous, row) = (previous, row, older)
        }
        return previous[b.count]
    }
}
