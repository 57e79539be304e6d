import Foundation

/// The store's identity as its database records it (`store_identity`, schema 8), against the
/// manifest's.
enum StoreIdentity {
    /// What the database says about whose it is.
    enum Finding: Equatable {
        /// It records this store's id.
        case matches
        /// It records no id yet (a schema before 8, or a store whose first open stopped before
        /// recording it).
        case unrecorded
        /// It records another store's id.
        case belongsTo(String)
    }

    /// Compares the recorded id with `storeID`; works read-only.
    static func check(_ connection: Connection, storeID: UUID) throws -> Finding {
        guard try Migrations.currentVersion(connection) >= Migrations.firstVersionWithIdentity else { return .unrecorded }
        guard let recorded = try connection.text("SELECT store_id FROM store_identity WHERE id = 1") else {
            return .unrecorded
        }
        return recorded == storeID.uuidString ? .matches : .belongsTo(recorded)
    }

    /// Records `storeID` when nothing is recorded yet, then checks: the writer's open.
    static func claim(_ connection: Connection, storeID: UUID) throws -> Finding {
        let insert = try connection.prepare("INSERT OR IGNORE INTO store_identity (id, store_id) VALUES (1, ?)")
        insert.bind(storeID.uuidString, at: 1)
        try insert.run()
        return try check(connection, storeID: storeID)
    }

    /// Counts one more write transaction: run inside each, so every WAL the library writes holds
    /// the row.
    static let countCommitSQL = "UPDATE store_identity SET commits = commits + 1 WHERE id = 1"
}
