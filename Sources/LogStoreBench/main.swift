import Foundation

/// `swift run -c release logstore-bench [--quick] [--json FILE]`
///
/// Prints each figure beside a baseline measured in the same run, as a Markdown table (for the
/// README), and optionally writes `{"figures":[{name, value, baseline, ratio, unit}]}`.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == CBaselineProcess.flag {
    exit(CBaselineProcess.runChild(Array(arguments.dropFirst())))
}
if arguments.contains("--help") || arguments.contains("-h") {
    print("""
        usage: logstore-bench [--quick] [--json FILE]
          --quick      200k messages instead of 1M; 64 MiB for SHA-1 and 8 MiB for zlib
                       instead of 256 MiB and 32 MiB
          --json FILE  also write the figures as JSON
        """)
    exit(0)
}
let quick = arguments.contains("--quick")
var jsonPath: String?
if let index = arguments.firstIndex(of: "--json") {
    guard index + 1 < arguments.count else {
        FileHandle.standardError.write(Data("--json needs a file name\n".utf8))
        exit(64)
    }
    jsonPath = arguments[index + 1]
}

guard BenchRow.verifyAgainstBaseline() else {
    FileHandle.standardError.write(Data("the Swift row generator differs from the C baseline's\n".utf8))
    exit(1)
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logstore-bench-\(UUID().uuidString)")
do {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let rows = quick ? 200_000 : 1_000_000
    print("logstore-bench: \(rows) messages, \(ProcessInfo.processInfo.activeProcessorCount) CPUs\n")
    var figures = try await IngestBenchmark(rows: rows, directory: directory).run()
    figures += try HashingBenchmark(quick: quick, directory: directory).run()
    figures += try await BlobBenchmark(quick: quick, directory: directory).run()
    print(FigureReport.table(figures))
    if let jsonPath {
        try FigureReport.writeJSON(figures, to: jsonPath)
        print("\nwrote \(jsonPath)")
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
