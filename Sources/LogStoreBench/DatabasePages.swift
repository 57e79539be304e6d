import Foundation

/// Questions about a closed store's database file, answered by the `sqlite3` shell opened
/// `-readonly` in a child process: chiefly SQLite's page statistics (the `dbstat` virtual table).
///
/// The shell rather than the library or the C baseline: the library keeps its connections to
/// itself, and the C baseline's functions open read-write and return one integer. It is the shell
/// the failing figures use (``FailingBenchmark/sqlite3``). A read-only shell leaves an empty
/// `-wal` and a `-shm` beside a WAL database: measure the files before asking.
enum DatabasePages {
    /// The shell is missing, or its SQLite was built without `dbstat`
    /// (`SQLITE_ENABLE_DBSTAT_VTAB`): the figures that need it are skipped, not made up.
    struct Unavailable: Error {
        var reason: String
    }

    /// The rows `sql` returns on the database at `path`, each split into its columns (as text).
    ///
    /// - Throws: ``Unavailable`` when the shell is missing or `dbstat` is not there;
    ///   ``BenchError`` when the shell fails otherwise.
    static func rows(_ path: String, _ sql: String) throws -> [[String]] {
        let shell = FailingBenchmark.sqlite3
        guard FileManager.default.isExecutableFile(atPath: shell) else {
            throw Unavailable(reason: "\(shell) is missing")
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: shell)
        child.arguments = ["-readonly", "-batch", "-noheader", "-separator", "\t", path, sql]
        let output = Pipe()
        let errors = Pipe()
        child.standardOutput = output
        child.standardError = errors
        try child.run()
        // The answers are a few lines; the error text, if any, fits the pipe.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        child.waitUntilExit()
        guard child.terminationStatus == 0, message.isEmpty else {
            if message.contains("no such table: dbstat") {
                throw Unavailable(reason: "the SQLite of \(shell) has no dbstat")
            }
            throw BenchError.failed("\(shell) \(sql): \(message) (status \(child.terminationStatus))")
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// The integer in column `column` of row `row` of `rows`.
    static func integer(_ rows: [[String]], row: Int = 0, column: Int) throws -> Int64 {
        guard row < rows.count, column < rows[row].count, let value = Int64(rows[row][column]) else {
            throw BenchError.failed("sqlite3 answered \(rows), not an integer at row \(row), column \(column)")
        }
        return value
    }
}
