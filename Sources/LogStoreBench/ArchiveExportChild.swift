import Foundation
import LogStore

/// `export.peak_rss_mb` measured where it means what it says: a process of its own (this
/// executable re-run with ``flag``, then `STORE ARCHIVE`) that opens the store read-write, as a
/// live app has it, exports it as an archive, closes it and exits, and reports its own peak RSS
/// (``BenchChild``), so nothing an earlier benchmark group left in the parent's memory counts.
enum ArchiveExportChild {
    static let flag = "--archive-export-child"

    struct Run {
        /// The child's peak resident set size, whole life (start, open, export, close), in MB.
        var peakMB: Double
        /// What the child held resident just before the export (runtime, open store), in MB.
        var residentBeforeMB: Double
        var messageCount: Int
    }

    /// Spawns the child, waits for it and returns its peak.
    static func run(store: URL, archive: URL) throws -> Run {
        let outcome = try BenchChild.run("archive export child", arguments: [flag, store.path, archive.path])
        guard outcome.fields.count == 2, let residentKB = Double(outcome.fields[0]), let messages = Int(outcome.fields[1]) else {
            throw BenchError.failed("archive export child printed \(outcome.fields.joined(separator: " "))")
        }
        return Run(peakMB: outcome.peakMB, residentBeforeMB: residentKB / 1024, messageCount: messages)
    }

    /// The child's side when `arguments` start with ``flag``: prints `RESIDENT_KB_BEFORE MESSAGES PEAK_KB`.
    static func runIfAsked(_ arguments: [String]) async -> Int32? {
        guard arguments.first == flag else { return nil }
        guard arguments.count == 3 else { return 64 }
        do {
            let store = try await BenchStore.open(at: URL(fileURLWithPath: arguments[1]), options: [])
            let resident = BenchChild.residentKilobytes()
            let report: ExportReport
            do {
                report = try await store.export(to: URL(fileURLWithPath: arguments[2]))
            } catch {
                try? await store.close()
                throw error
            }
            try await store.close()
            BenchChild.report([String(resident), String(report.messageCount)])
            return 0
        } catch {
            FileHandle.standardError.write(Data("archive export child: \(error)\n".utf8))
            return 1
        }
    }
}
