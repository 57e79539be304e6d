import Foundation

/// One measured figure beside its baseline from the same run.
struct Figure: Encodable {
    var name: String
    var value: Double
    var baseline: Double
    /// Always `value / baseline`: above 1 is better for a rate, below 1 is better for a time.
    var ratio: Double
    var unit: String
    /// What the baseline is, for the table.
    var baselineDescription: String
    /// A target from the issue, for the table (e.g. "≥ 1.0× baseline").
    var target: String

    init(name: String, value: Double, baseline: Double, unit: String, baselineDescription: String, target: String) {
        self.name = name
        self.value = value
        self.baseline = baseline
        self.ratio = baseline == 0 ? 0 : value / baseline
        self.unit = unit
        self.baselineDescription = baselineDescription
        self.target = target
    }

    private enum CodingKeys: String, CodingKey {
        case name, value, baseline, ratio, unit
    }

    /// `<name>_p50` and `<name>_p99` of cross-process latencies (ms, sorted), each beside the
    /// writer's save interval `saveInterval` (ms): the floor before group commit, when the
    /// writer committed once per interval; issue 33's bound for p99 is 150 ms (aim 50 ms).
    static func latencyPercentiles(
        _ name: String, sorted latencies: [Double], saveInterval: Double, description: String
    ) -> [Figure] {
        func at(_ fraction: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))] }
        return [
            Figure(
                name: "\(name)_p50", value: at(0.5), baseline: saveInterval, unit: "ms",
                baselineDescription: description, target: "≤ 1.0"),
            Figure(
                name: "\(name)_p99", value: at(0.99), baseline: saveInterval, unit: "ms",
                baselineDescription: "the same", target: "≤ 150 ms (aim 50 ms)"),
        ]
    }
}

/// Prints figures as a Markdown table (it goes straight into the README) and writes JSON.
enum FigureReport {
    static func table(_ figures: [Figure]) -> String {
        var lines = [
            "| figure | value | baseline | ratio | baseline is | target |",
            "|---|---:|---:|---:|---|---|",
        ]
        for figure in figures {
            lines.append(
                "| `\(figure.name)` | \(format(figure.value)) \(figure.unit) | \(format(figure.baseline)) \(figure.unit) "
                    + "| \(String(format: "%.2f", figure.ratio)) | \(figure.baselineDescription) | \(figure.target) |")
        }
        return lines.joined(separator: "\n")
    }

    static func format(_ value: Double) -> String {
        if value >= 1000 { return String(format: "%.0f", value) }
        if value >= 10 { return String(format: "%.1f", value) }
        return String(format: "%.3f", value)
    }

    static func writeJSON(_ figures: [Figure], to path: String) throws {
        struct File: Encodable { var figures: [Figure] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(File(figures: figures)).write(to: URL(fileURLWithPath: path))
    }
}
