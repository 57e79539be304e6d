/// The `.ndjson` format (being built).
enum NDJSONExport {
    static func write(_ source: ExportSource, to output: ExportOutput, progress: ExportProgressReporter) throws -> ExportCounts {
        throw LogStoreError.invalidArgument("the ndjson format is not built yet")
    }
}
