/// The `.html` format (being built).
enum HTMLExport {
    static func write(_ source: ExportSource, to output: ExportOutput, progress: ExportProgressReporter) throws -> ExportCounts {
        throw LogStoreError.invalidArgument("the html format is not built yet")
    }
}
