extension Schema {
    /// Version 8: the database knows which store it belongs to.
    ///
    /// A WAL carries no identity of its database: SQLite applies the frames of any WAL beside
    /// the file, so a WAL (or a database file) copied from another store would make this store's
    /// directory read another store's rows, and its body files would look like orphans. The one
    /// row holds the store's id (the manifest's, written at the first open of this schema), and
    /// every transaction of the writer (batches, sweep steps) counts itself in `commits`: so any
    /// WAL the library wrote holds the row's page, and the open compares the row with the
    /// manifest before it touches anything. (A WAL of a store of schema 7 or older holds no
    /// such row, and another store's copied beside this one goes unnoticed; the migration at
    /// open then records this store's id over it.)
    static let version8 = """
        CREATE TABLE store_identity (
            id        INTEGER PRIMARY KEY CHECK (id = 1),
            store_id  TEXT NOT NULL,
            commits   INTEGER NOT NULL DEFAULT 0
        );
        """
}
