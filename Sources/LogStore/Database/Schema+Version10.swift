extension Schema {
    /// Version 10: the retention guard in the database (`history_authors.guards_retention`).
    ///
    /// Until 9 the guard (``HistoryConfiguration/retentionGuard``) was a setting of the process
    /// that swept: a tool or another process opening the store without it (`logstore sweep` from
    /// cron) swept by age as if no consumer waited, deleting what a consumer had asked to keep.
    /// Now each author's row says whether that author asks for it, set from its configuration
    /// every time it opens the store and cleared when it retires; every age sweep of every
    /// process applies the guard while a required author that has not retired asks. So the
    /// guard, like the rule of cleanup before it (``version9``), is the same for every process
    /// and tool. Rows of authors named before they open ask for nothing until they do (0).
    static let version10 = """
        ALTER TABLE history_authors ADD COLUMN guards_retention INTEGER NOT NULL DEFAULT 0;
        """
}
