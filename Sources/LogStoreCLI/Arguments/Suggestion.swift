/// "Did you mean …?": the known name closest to a mistyped one.
enum Suggestion {
    /// The candidate nearest to `typed` (fewest single-character edits), when it is near
    /// enough to be a typo: at most 2 edits, and fewer than half of its length.
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

    /// Levenshtein distance, with one row of memory.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var diagonal = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let above = row[j]
                row[j] = a[i - 1] == b[j - 1] ? diagonal : 1 + min(diagonal, row[j - 1], above)
                diagonal = above
            }
        }
        return row[b.count]
    }
}
