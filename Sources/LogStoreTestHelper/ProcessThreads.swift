import Foundation

// What the WAL modes read of this process: its threads by name (`/proc/self/task/*/comm`), and
// file sizes.

/// Polls `condition` every 5 ms for at most `seconds`; returns either way (the caller's
/// figures show what happened).
func waitUntil(seconds: Double, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition(), ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// The size of the file at `url`, 0 when it is not there.
func fileSize(_ url: URL) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
}

/// The `/proc/self/task` directories of this process's threads named `name`.
private func taskDirectories(named name: String) -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.map { "/proc/self/task/\($0)" }.filter { directory in
        let comm = try? String(contentsOfFile: "\(directory)/comm", encoding: .utf8)
        return comm?.trimmingCharacters(in: .whitespacesAndNewlines) == name
    }
}

/// The bytes this process's threads named `name` passed to write calls (`wchar`).
func writtenBytes(threadsNamed name: String) -> Int {
    taskDirectories(named: name).reduce(0) { total, directory in
        guard let io = try? String(contentsOfFile: "\(directory)/io", encoding: .utf8),
            let line = io.split(separator: "\n").first(where: { $0.hasPrefix("wchar:") }),
            let bytes = Int(line.dropFirst("wchar:".count).trimmingCharacters(in: .whitespaces))
        else { return total }
        return total + bytes
    }
}

/// How many of this process's threads are named `name`.
func threads(named name: String) -> Int {
    taskDirectories(named: name).count
}
