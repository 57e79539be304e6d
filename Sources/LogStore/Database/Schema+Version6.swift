extension Schema {
    /// Version 6: full-text search over task URLs.
    ///
    /// `task_search` is an FTS5 index of `tasks.url` and `tasks.path` with `tasks` as its
    /// external content (the text is stored once), `columnsize=0` (no per-row size table: one
    /// B-tree write less per task) and the same `unicode61 remove_diacritics 2` tokenizer as
    /// `message_search`, so `TextSearch` means the same thing over URLs and messages: a URL's
    /// words are its runs of letters and digits (`https://api.example.com/v1/orders?page=2`
    /// holds `api`, `example`, `com`, `v1`, `orders`, `page`, `2`). The URL is stored
    /// percent-encoded (`caf%C3%A9.png`); the path, decoded (`café.png`), is indexed beside it
    /// so the words of a non-ASCII path are found as typed.
    ///
    /// Unlike messages, tasks are indexed by triggers in the transaction that writes them:
    /// tasks are about ten times rarer than messages and each already costs several row, head
    /// and body writes, so the index adds little (see the README's `network.tasks_per_s`) and
    /// every stored task is searchable at once, with no catch-up state. The update trigger fires
    /// only when a URL changes (a pending task's completion rewrites the row with the same URL).
    ///
    /// Every task has its entry, with or without a URL (NULLs index no words): the triggers then
    /// write exactly what `rebuild` reads, and a `delete` always finds what its insert indexed.
    /// `rebuild` indexes the tasks an existing store already holds, inside the migration.
    static let version6 = """
        CREATE VIRTUAL TABLE task_search USING fts5(
            url, path,
            content = 'tasks', content_rowid = 'id', columnsize = 0,
            tokenize = 'unicode61 remove_diacritics 2'
        );

        CREATE TRIGGER task_search_insert AFTER INSERT ON tasks
        BEGIN
            INSERT INTO task_search (rowid, url, path) VALUES (new.id, new.url, new.path);
        END;

        CREATE TRIGGER task_search_delete AFTER DELETE ON tasks
        BEGIN
            INSERT INTO task_search (task_search, rowid, url, path) VALUES ('delete', old.id, old.url, old.path);
        END;

        CREATE TRIGGER task_search_update AFTER UPDATE OF url, path ON tasks
        WHEN old.url IS NOT new.url OR old.path IS NOT new.path
        BEGIN
            INSERT INTO task_search (task_search, rowid, url, path) VALUES ('delete', old.id, old.url, old.path);
            INSERT INTO task_search (rowid, url, path) VALUES (new.id, new.url, new.path);
        END;

        INSERT INTO task_search (task_search) VALUES ('rebuild');
        """
}
