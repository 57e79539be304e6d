import Foundation

/// The database inside an archive: a consistent, compacted copy of what an export selects, made
/// from a read connection while the store keeps logging (never by copying files under a live
/// writer), then finished on its own connection.
enum ArchiveSnapshot {
    /// What the finished copy holds, for the info record and for copying the bodies beside it.
    struct Contents {
        var messageCount = 0
        var taskCount = 0
        var blobCount = 0
        var sessions: [ArchiveInfo.Session] = []
        var schemaVersion = 0
        /// The bodies kept in files: their row id, key and stored size.
        var blobFiles: [(rowID: Int64, key: SHA1.Digest, size: Int)] = []
    }

    /// Writes the copy into the empty file at `url`: the whole database with `VACUUM INTO` (which
    /// reads one snapshot and writes the pages compacted), or only the selected rows.
    static func copy(from source: Connection, options: ExportOptions, to url: URL, progress: ExportProgressReporter) throws {
        if options.selectsEverything {
            try source.run("VACUUM INTO ?", [.text(url.path)])
        } else {
            try FilteredCopy.copy(from: source, options: options, to: url, progress: progress)
        }
    }

    /// Opens the copy at `url` for finishing. Its journal mode is DELETE (a copy of a WAL store
    /// says WAL), so it reads as one file once extracted.
    static func open(_ url: URL) throws -> Connection {
        let copy = try Connection(path: url.path, mode: .readWrite(create: false))
        try copy.setScratchJournal(.delete)
        return copy
    }

    /// Empties the change history (``Schema/version9``): it serves the processes sharing a live
    /// store, and its tombstones keep fields of rows that were deleted on purpose. With
    /// `secure_delete`, the freed pages are zeroed, so nothing of it stays in the file.
    static func dropHistory(_ copy: Connection) throws {
        guard try Migrations.currentVersion(copy) >= Migrations.firstVersionWithHistory else { return }
        try copy.setSecureDelete(true)
        try copy.transaction {
            try copy.execute(HistoryTables.clearSQL)
        }
    }

    /// Adds the messages the index has not covered yet (the store's writer indexes in steps, so
    /// its newest messages may not be in it; an archive never changes again, so it is indexed
    /// completely), and records it complete.
    static func catchUpSearchIndex(_ copy: Connection) throws {
        guard try SearchIndex.hasIndex(copy) else { return }
        try copy.transaction {
            try SearchIndex.indexRemaining(copy)
        }
    }

    /// What the copy holds.
    static func contents(of copy: Connection) throws -> Contents {
        var contents = Contents()
        contents.schemaVersion = try Migrations.currentVersion(copy)
        // Counted as `info()` counts them: without the technical messages of tasks.
        contents.messageCount = Int(try MessageCounts.total(copy) ?? 0)
        for session in try SessionRows.all(copy) {
            contents.sessions.append(ArchiveInfo.Session(
                id: session.id, startDate: session.startDate, app: session.app.name, appVersion: session.app.version,
                hostname: session.host.hostname))
        }
        guard contents.schemaVersion >= Migrations.firstVersionWithTasks else { return contents }
        contents.taskCount = Int(try copy.integer(Tasks.countSQL) ?? 0)
        contents.blobCount = Int(try copy.integer(Blobs.countSQL) ?? 0)
        let statement = try copy.prepare(Blobs.inFilesSQL)
        while try statement.step() {
            guard let key = SHA1.Digest(bytes: statement.bytes(at: 1)) else {
                throw LogStoreError.unexpected("blob row \(statement.int64(at: 0)) has a key that is not a SHA-1")
            }
            contents.blobFiles.append((statement.int64(at: 0), key, statement.int(at: 2)))
        }
        return contents
    }

    /// Records in the copy that these bodies are gone: a sweep removed their files after the
    /// snapshot was taken. Their tasks say so as they would after that sweep.
    static func markBodiesRemoved(_ rowIDs: [Int64], in copy: Connection) throws {
        guard !rowIDs.isEmpty else { return }
        let list = "[" + rowIDs.map(String.init).joined(separator: ",") + "]"
        try copy.transaction {
            try copy.run(Tasks.dropBodyIDsSQL, [.text(list)])
            try copy.run(Blobs.deleteIDsSQL, [.text(list)])
        }
    }
}
