import CBenchBaseline
import Foundation

/// Runs the C insert baseline in a child process (this executable, re-run with a hidden flag),
/// so it gets SQLite's default process-wide configuration, as naive code would.
enum CBaselineProcess {
    static let flag = "--c-baseline-insert"

    /// The seconds the child took to insert `rows` rows into a new naive database at `path`.
    static func insert(rows: Int, path: String) throws -> Double {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        child.arguments = [flag, String(rows), path]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard child.terminationStatus == 0, let seconds = Double(text) else {
            throw BenchError.failed("C baseline child failed (\(child.terminationStatus)): \(text)")
        }
        return seconds
    }

    /// The child's side: inserts and prints the seconds; returns the exit code.
    static func runChild(_ arguments: [String]) -> Int32 {
        guard arguments.count == 2, let rows = Int64(arguments[0]) else { return 64 }
        var seconds = 0.0
        var message = [CChar](repeating: 0, count: 512)
        let code = lsb_insert_naive(arguments[1], rows, 10_000, &seconds, &message, Int32(message.count))
        guard code == 0 else {
            print(String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            return 1
        }
        print(seconds)
        return 0
    }
}
