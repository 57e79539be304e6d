/// The ids and creation times of the messages one batch inserted.
struct MessageRange {
    var firstID: Int64 = 0
    var lastID: Int64 = 0
    var minCreatedAt = Double.infinity
    var maxCreatedAt = -Double.infinity
    var count = 0

    mutating func add(id: Int64, createdAt: Double) {
        if count == 0 { firstID = id }
        lastID = id
        minCreatedAt = min(minCreatedAt, createdAt)
        maxCreatedAt = max(maxCreatedAt, createdAt)
        count += 1
    }
}
