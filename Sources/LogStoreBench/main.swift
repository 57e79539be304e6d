import Foundation

/// `swift run -c release logstore-bench [--quick] [--json FILE]`
///
/// Prints each figure beside a baseline measured in the same run, as a Markdown table (for the
/// README), and optionally writes `{"figures":[{name, value, baseline, ratio, unit}]}`.
let arguments = Array(CommandLine.arguments.dropFirst())
if let code = CBaselineProcess.runChildIfAsked(arguments) {
    exit(code)
}
if let code = await TailBenchmark.runWriterIfAsked(arguments) {
    exit(code)
}
if let code = await HistoryBenchmark.runWriterIfAsked(arguments) {
    exit(code)
}
if let code = await SteadySoak.runIfAsked(arguments) {
    exit(code)
}
if let code = await ArchiveExportChild.runIfAsked(arguments) {
    exit(code)
}
if let code = await IngestChild.runIfAsked(arguments) {
    exit(code)
}
if arguments.contains("--help") || arguments.contains("-h") {
    print("""
        usage: logstore-bench [--quick] [--only GROUP,...] [--json FILE]
               logstore-bench --steady-soak MINUTES   (Scripts/soak.sh: paced logging, RSS and size)
          --quick      200k messages instead of 1M; 64 MiB for SHA-1 and 8 MiB for zlib
                       instead of 256 MiB and 32 MiB; a 20 s sweep soak instead of 60 s, 10 s of failing
                       commits instead of 60 s, 2 s of observed logging for history instead of 10 s, 20k network
                       tasks for the store's metrics instead of 100k
          --only       run only these groups: \(BenchGroup.allCases.map(\.rawValue).joined(separator: ", "))
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
var groups = Set(BenchGroup.allCases)
if let index = arguments.firstIndex(of: "--only") {
    let names = index + 1 < arguments.count ? arguments[index + 1].split(separator: ",") : []
    let chosen = names.compactMap { BenchGroup(rawValue: String($0)) }
    guard !chosen.isEmpty, chosen.count == names.count else {
        FileHandle.standardError.write(Data("--only needs groups among: \(BenchGroup.allCases.map(\.rawValue))\n".utf8))
        exit(64)
    }
    groups = Set(chosen)
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
    var figures: [Figure] = []
    if groups.contains(.ingest) { figures += try await IngestBenchmark(rows: rows, directory: directory).run() }
    if groups.contains(.search) { figures += try await SearchBenchmark(rows: rows, directory: directory).run() }
    if groups.contains(.hashing) { figures += try HashingBenchmark(quick: quick, directory: directory).run() }
    if groups.contains(.blobs) { figures += try await BlobBenchmark(quick: quick, directory: directory).run() }
    if groups.contains(.network) { figures += try await NetworkBenchmark(quick: quick, directory: directory).run() }
    if groups.contains(.sweep) {
        figures += try await SweepBenchmark(rows: rows, quick: quick, directory: directory).run()
    } else if groups.contains(.soak) {
        figures += try await SweepBenchmark.soaks(quick: quick, directory: directory)
    }
    if groups.contains(.reader) { figures += try await ReaderStallBenchmark(quick: quick, directory: directory).run() }
    if groups.contains(.failing) { figures += try await FailingBenchmark(quick: quick, directory: directory).run() }
    if groups.contains(.summary) { figures += try await SummaryBenchmark(rows: rows, directory: directory).run() }
    if groups.contains(.tail) { figures += try await TailBenchmark(directory: directory).run() }
    if groups.contains(.export) { figures += try await ExportBenchmark(rows: rows, directory: directory).run() }
    if groups.contains(.archive) { figures += try await ArchiveBenchmark(rows: rows, directory: directory).run() }
    if groups.contains(.store) { figures += try await DensityBenchmark(rows: rows, quick: quick, directory: directory).run() }
    if groups.contains(.history) { figures += try await HistoryBenchmark(rows: rows, quick: quick, directory: directory).run() }
    if groups.contains(.serve) { figures += try await ServeBenchmark(rows: rows, quick: quick, directory: directory).run() }
    if groups.contains(.fleet) { figures += try await FleetBenchmark(rows: rows, quick: quick, directory: directory).run() }
    #if SwiftLog
    if groups.contains(.swiftlog) { figures += try await SwiftLogBenchmark(quick: quick, directory: directory).run() }
    #endif
    print(FigureReport.table(figures))
    if let jsonPath {
        try FigureReport.writeJSON(figures, to: jsonPath)
        print("\nwrote \(jsonPath)")
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}

/// The parts of the benchmark `--only` can pick, in the order they run. `soak` is the sweep's
/// soaks alone (`sweep` includes them); `search` fills its own store with the full-text index on
/// (`ingest` keeps it off); `store` is what stores take on disk (``DensityBenchmark``); `fleet` ships
/// to a ClickHouse server it starts (``FleetBenchmark``), skipped where ClickHouse is not installed.
enum BenchGroup: String, CaseIterable {
    case ingest, search, hashing, blobs, network, sweep, soak, reader, failing, tail
    case summary
    case export
    case archive
    case store
    case history
    case serve
    case fleet
    #if SwiftLog
    case swiftlog
    #endif
}
