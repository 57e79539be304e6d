import Foundation
import Glibc

/// The directories of clusters whose test process died without `stop()`, and the servers still
/// running in them (when `setpriv` was missing, or a process escaped it): removed at the next
/// start, so a crashed run costs disk and memory only until then.
///
/// A cluster's directory holds an `owner` file naming the process that started it (its pid and
/// start time, so a reused pid does not pass for it). A directory whose owner is gone is a
/// leftover: every process whose command line names the directory is killed, then it is removed.
enum Leftovers {
    /// How every cluster directory's name starts.
    static let prefix = "logstore-clickhouse-"

    /// Marks `directory` as this process's.
    static func claim(_ directory: URL) throws {
        try ownerMark(of: getpid()).write(
            to: directory.appendingPathComponent("owner"), atomically: true, encoding: .utf8)
    }

    /// Removes the leftovers in `parent`, killing what still runs in them. Best effort: a
    /// directory it cannot read or remove stays (the next start tries again).
    static func sweep(in parent: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            let directory = parent.appendingPathComponent(name, isDirectory: true)
            guard let owner = try? String(contentsOf: directory.appendingPathComponent("owner"), encoding: .utf8)
            else { continue }  // being set up by another process right now, or not ours
            if let pid = Int32(owner.split(separator: " ").first ?? ""), ownerMark(of: pid) == owner {
                continue  // its owner still runs
            }
            for pid in processes(naming: directory.path) { kill(pid, SIGKILL) }
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// "pid starttime" (field 22 of `/proc/<pid>/stat`), or "pid" alone when unreadable.
    private static func ownerMark(of pid: Int32) -> String {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return "\(pid)" }
        // Fields after the command name (which may hold spaces) start with field 3.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? "\(pid) \(fields[19])" : "\(pid)"
    }

    /// The processes whose command line contains `path`.
    private static func processes(naming path: String) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry), pid != getpid(),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { return nil }
            let arguments = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            return arguments.contains(path + "/") ? pid : nil
        }
    }
}
