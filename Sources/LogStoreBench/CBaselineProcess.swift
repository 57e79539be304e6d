import CBenchBaseline
import Foundation

/// Runs the C baselines that write in a child process (this executable, re-run with a hidden
/// flag), so they get SQLite's default process-wide configuration, as naive code would.
enum CBaselineProcess {
    /// `--c-baseline-insert ROWS PATH`: fills a new naive database.
    static let insertFlag = "--c-baseline-insert"
    /// `--c-baseline-insert-fts ROWS PATH`: the same with an FTS5 insert per row.
    static let insertFTSFlag = "--c-baseline-insert-fts"
    /// `--c-baseline-delete THROUGH_ID PATH`: deletes the oldest rows of a naive database.
    static let deleteFlag = "--c-baseline-delete"

    /// `--c-baseline-export text|json PATH OUT`: writes the naive database's messages to a file.
    static let exportFlag = "--c-baseline-export"

    /// The seconds the child took to write every message of the naive database at `path` to a
    /// new file at `output` (`lsb_export_naive`), and the file's size.
    static func export(json: Bool, path: String, output: String) throws -> (seconds: Double, bytes: Int) {
        let result = try runChild(arguments: [exportFlag, json ? "json" : "text", path, output])
        return (result.seconds, result.count)
    }

    /// The seconds the child took to insert `rows` rows into a new naive database at `path`.
    static func insert(rows: Int, path: String) throws -> Double {
        try runChild(arguments: [insertFlag, String(rows), path]).seconds
    }

    /// The seconds the child took to insert `rows` rows into a new naive database with a
    /// naive FTS5 index (`lsb_insert_naive_fts`: an index insert per row in the same
    /// transaction) at `path`.
    static func insertWithSearch(rows: Int, path: String) throws -> Double {
        try runChild(arguments: [insertFTSFlag, String(rows), path]).seconds
    }

    /// The seconds the child took to delete the rows with `id <= throughID` from the naive
    /// database at `path` in one statement (commit included), and how many it deleted.
    static func deleteOldest(throughID: Int, path: String) throws -> (seconds: Double, deleted: Int) {
        let result = try runChild(arguments: [deleteFlag, String(throughID), path])
        return (result.seconds, result.count)
    }

    /// `--c-baseline-network TASKS LEVEL WORKLOAD PATH`: the naive network pipeline.
    static let networkFlag = "--c-baseline-network"

    /// The naive network pipeline (`lsb_network_naive`) storing `tasks` tasks of the workload file
    /// at `workload` into a new database at `path`, compressing at `level`: its wall seconds, its
    /// CPU seconds (user + system, the child alone) and the blob rows it inserted.
    static func network(
        tasks: Int, level: Int, workload: String, path: String
    ) throws -> (seconds: Double, cpuSeconds: Double, blobs: Int) {
        let fields = try runChildFields(arguments: [networkFlag, String(tasks), String(level), workload, path])
        guard fields.count == 3, let seconds = Double(fields[0]), let cpu = Double(fields[1]),
            let blobs = Int(fields[2])
        else {
            throw BenchError.failed("C network baseline child printed \(fields)")
        }
        return (seconds, cpu, blobs)
    }

    /// Starts the child and reads its one line: `SECONDS [COUNT]`.
    private static func runChild(arguments: [String]) throws -> (seconds: Double, count: Int) {
        let fields = try runChildFields(arguments: arguments)
        guard let first = fields.first, let seconds = Double(first) else {
            throw BenchError.failed("C baseline child printed \(fields)")
        }
        return (seconds, fields.count > 1 ? Int(fields[1]) ?? 0 : 0)
    }

    /// Starts the child and reads its one line, split at spaces.
    private static func runChildFields(arguments: [String]) throws -> [String] {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        child.arguments = arguments
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard child.terminationStatus == 0 else {
            throw BenchError.failed("C baseline child failed (\(child.terminationStatus)): \(text)")
        }
        return text.split(separator: " ").map(String.init)
    }

    /// The child's side, when `arguments` start with one of the flags: runs the baseline, prints
    /// its result and returns the exit code; `nil` for an ordinary run.
    static func runChildIfAsked(_ arguments: [String]) -> Int32? {
        if arguments.first == exportFlag { return runExportChild(arguments) }
        if arguments.first == networkFlag { return runNetworkChild(arguments) }
        guard let flag = arguments.first, [insertFlag, insertFTSFlag, deleteFlag].contains(flag) else { return nil }
        guard arguments.count == 3, let number = Int64(arguments[1]) else { return 64 }
        let path = arguments[2]
        var seconds = 0.0
        var count: Int64 = 0
        var message = [CChar](repeating: 0, count: 512)
        let code = switch flag {
        case insertFlag: lsb_insert_naive(path, number, 10_000, &seconds, &message, Int32(message.count))
        case insertFTSFlag: lsb_insert_naive_fts(path, number, 10_000, &seconds, &message, Int32(message.count))
        default: lsb_delete_oldest_naive(path, number, &seconds, &count, &message, Int32(message.count))
        }
        guard code == 0 else {
            print(String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            return 1
        }
        print(flag == deleteFlag ? "\(seconds) \(count)" : "\(seconds)")
        return 0
    }

    private static func runExportChild(_ arguments: [String]) -> Int32 {
        guard arguments.count == 4, ["text", "json"].contains(arguments[1]) else { return 64 }
        var seconds = 0.0
        var bytes: Int64 = 0
        var rows: Int64 = 0
        var message = [CChar](repeating: 0, count: 512)
        let code = lsb_export_naive(
            arguments[2], arguments[3], arguments[1] == "json" ? 1 : 0, &seconds, &bytes, &rows, &message,
            Int32(message.count))
        guard code == 0 else {
            print(String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            return 1
        }
        print("\(seconds) \(bytes)")
        return 0
    }

    private static func runNetworkChild(_ arguments: [String]) -> Int32 {
        guard arguments.count == 5, let tasks = Int64(arguments[1]), let level = Int32(arguments[2]) else { return 64 }
        var seconds = 0.0
        var cpuSeconds = 0.0
        var blobs: Int64 = 0
        var message = [CChar](repeating: 0, count: 512)
        let code = lsb_network_naive(
            arguments[3], arguments[4], tasks, 10_000, level, &seconds, &cpuSeconds, &blobs, &message,
            Int32(message.count))
        guard code == 0 else {
            print(String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            return 1
        }
        print("\(seconds) \(cpuSeconds) \(blobs)")
        return 0
    }
}
