/// The `.text` format (being built).
enum TextExport {
    static func write(_ source: ExportSource, to output: ExportOutput, progress: ExportProgressReporter) throws -> ExportCounts {
        throw LogStoreError.invalidArgument("the text format is not built yet")
    }
}
