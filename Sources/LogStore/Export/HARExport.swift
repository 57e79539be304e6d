/// The `.har` format (being built).
enum HARExport {
    static func write(_ source: ExportSource, to output: ExportOutput, progress: ExportProgressReporter) throws -> ExportCounts {
        throw LogStoreError.invalidArgument("the har format is not built yet")
    }
}
