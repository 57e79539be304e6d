import Foundation
import LogStore

/// `summary`'s human output: totals, the error rate, counts per level, the busiest labels and
/// a histogram with one row per bucket:
/// `2025-03-01T12:00:00.000Z  ██████████████▌         1,204`.
enum SummaryFormat {
    /// The widest bar, in characters.
    static let barWidth = 40
    /// Labels listed under "Busiest labels".
    static let busiestLabels = 10

    static func lines(_ summary: MessageSummary, style: TextStyle) -> [String] {
        guard summary.total > 0 else {
            var lines = ["No messages match."]
            if let interval = summary.interval {
                lines.append("Window: \(style.time(interval.start)) to \(style.time(interval.end))")
            }
            return lines
        }
        var lines: [String] = []
        var rows: [(String, String)] = [("Messages", Format.count(summary.total))]
        if let interval = summary.interval {
            rows.append(("From", style.time(interval.start)))
            rows.append(("To", style.time(interval.end) + " (\(Format.duration(interval.duration)))"))
        }
        rows.append(("Error rate", errorRate(summary) + " (error and critical)"))
        lines += Format.fields(rows)

        lines += ["", style.bold("Levels")]
        let countWidth = Format.count(summary.total).count
        for level in LogStore.Level.allCases {
            lines.append("  " + style.level(level) + "  " + rightAligned(Format.count(summary.levels[level]), countWidth))
        }

        let busiest = summary.labels.prefix(busiestLabels)
        lines += ["", style.bold("Busiest labels") + (summary.labels.count > busiest.count
            ? style.dim(" (\(busiest.count) of \(summary.labels.count))") : "")]
        let labelWidth = min(24, busiest.map { DisplayWidth.of(Format.escaped($0.label)) }.max() ?? 0)
        let shares = busiest.map { Format.decimal(Double($0.count) / Double(summary.total) * 100, places: 1) }
        // Right-aligned like the counts, so the decimal points line up ("9.8 %" under "42.1 %").
        let shareWidth = shares.map(\.count).max() ?? 0
        for (label, share) in zip(busiest, shares) {
            let name = Format.escaped(label.label)
            let padded = DisplayWidth.padded(name, to: labelWidth)
            lines.append("  " + style.cyan(padded) + "  " + rightAligned(Format.count(label.count), countWidth)
                + style.dim("  \(rightAligned(share, shareWidth)) %"))
        }

        guard !summary.histogram.isEmpty else { return lines }
        let widest = summary.histogram.map(\.total).max() ?? 0
        lines += ["", style.bold("Messages over time") + style.dim(" (\(summary.histogram.count) buckets)")]
        for bucket in summary.histogram {
            let bar = self.bar(bucket, widest: widest, style: style)
            lines.append(style.dim(style.time(bucket.start)) + "  " + bar.text
                + String(repeating: " ", count: barWidth - bar.width) + "  "
                + rightAligned(Format.count(bucket.total), countWidth))
        }
        return lines
    }

    /// `2.5 %`; below 0.1 % but above none, `< 0.1 %`, so a rare error does not read as none.
    static func errorRate(_ summary: MessageSummary) -> String {
        let percent = summary.errorRate * 100
        if percent > 0 && percent < 0.1 { return "< 0.1 %" }
        return Format.decimal(percent, places: 1) + " %"
    }

    /// A bar scaled to the widest bucket, split into one segment per level in its colour
    /// (lowest level first); without colours, `#` characters. A bucket with messages gets at
    /// least one character, so no activity is hidden by the scale.
    static func bar(_ bucket: MessageSummary.Bucket, widest: Int, style: TextStyle) -> (text: String, width: Int) {
        guard bucket.total > 0, widest > 0 else { return ("", 0) }
        let width = max(1, Int((Double(bucket.total) / Double(widest) * Double(barWidth)).rounded()))
        guard style.enabled else { return (String(repeating: "#", count: width), width) }
        // Cumulative rounding: the segments always add up to the bar's width.
        var text = ""
        var counted = 0
        var drawn = 0
        for level in LogStore.Level.allCases {
            counted += bucket.levels[level]
            let end = Int((Double(counted) / Double(bucket.total) * Double(width)).rounded())
            if end > drawn {
                text += style.coloured(String(repeating: "█", count: end - drawn), as: level)
                drawn = end
            }
        }
        return (text, width)
    }

    private static func rightAligned(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
