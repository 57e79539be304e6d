import Foundation
import Glibc

/// The names of an export's temporary files, and the cleanup of those a killed export left.
///
/// Every temporary file of one export is `.<name>.<token>.logstore-<kind>` beside its target, the
/// token random: `partial` (the output, locked with `flock` while the export runs), `new` (the
/// output for the instant before it is locked), `unlocked` (the output on a file system without
/// locks) and the companions (`database`, `whole`, with
/// SQLite's journals of them). A process killed mid-export cannot remove them, but its lock goes
/// with it, so a later export into the same directory can tell an abandoned set from a running one.
enum ExportLeftovers {
    static let partial = "partial"
    static let new = "new"
    /// The output where `flock` is not supported: no lock tells a running export from a dead one.
    static let unlocked = "unlocked"
    /// What `flock` fails with on a file system that has no locks.
    static let lockingUnsupported: Set<Int32> = [ENOLCK, EOPNOTSUPP, ENOTSUP, ENOSYS, EINVAL]
    private static let marker = ".logstore-"
    /// A set without a partial file (killed in the instant before it was locked) goes only once
    /// it is this old: no export takes that long to lock its file.
    private static let newGrace: TimeInterval = 60
    /// A set written without a lock goes only once it is this old: no export runs a day.
    private static let unlockedGrace: TimeInterval = 24 * 60 * 60

    /// A new set's token: 64 random bits in base 36, always 13 digits.
    static func makeToken() -> String {
        let digits = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        return String(repeating: "0", count: tokenLength - digits.count) + digits
    }

    private static let tokenLength = 13

    /// `.<name>.<token>.logstore-<kind>` beside `target`, its name cut so the whole stays within
    /// the file system's 255 bytes whatever the target's length.
    static func name(beside target: URL, token: String, kind: String) -> URL {
        var name = target.lastPathComponent
        while name.utf8.count > 200 { name.removeLast() }
        return target.deletingLastPathComponent().appendingPathComponent(".\(name).\(token)\(marker)\(kind)")
    }

    /// Removes the temporary files of exports into `directory` that no process runs any more:
    /// those whose partial file's lock is free, and sets without one past the grace period. Only
    /// this user's regular files with the library's names; failures are left for the next export
    /// (this is tidying, not the export's work, so nothing here fails it).
    static func removeAbandoned(in directory: URL) {
        guard let names = try? Files.directoryEntries(directory) else { return }
        var sets: [Substring: [String]] = [:]
        for name in names where name.hasPrefix(".") {
            guard let stem = stem(of: name) else { continue }
            sets[stem, default: []].append(name)
        }
        for (stem, members) in sets {
            let files = members.map { directory.appendingPathComponent($0).path }
            guard files.allSatisfy(isOwnRegularFile) else { continue }
            let partialPath = directory.appendingPathComponent("\(stem)\(marker)\(partial)").path
            if members.contains("\(stem)\(marker)\(partial)") {
                guard case .success(let descriptor) = Files.openDescriptor(partialPath, O_RDWR | O_NOFOLLOW) else { continue }
                defer { close(descriptor) }
                // Held by a running export: it is not ours to touch.
                guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }
                for file in files where file != partialPath { unlink(file) }
                unlink(partialPath)
            } else {
                let grace = members.contains("\(stem)\(marker)\(unlocked)") ? unlockedGrace : newGrace
                let cutoff = Date().addingTimeInterval(-grace)
                let old = files.allSatisfy { Files.modificationDate(URL(fileURLWithPath: $0)).map { $0 < cutoff } ?? false }
                if old { for file in files { unlink(file) } }
            }
        }
    }

    /// `.<name>.<token>` for a name of the library's form (a token of 13 base-36 digits), or nil.
    private static func stem(of name: String) -> Substring? {
        guard let range = name.range(of: marker, options: .backwards) else { return nil }
        let stem = name[..<range.lowerBound]
        let kind = name[range.upperBound...]
        guard !kind.isEmpty, let dot = stem.lastIndex(of: "."), dot > stem.startIndex else { return nil }
        let token = stem[stem.index(after: dot)...]
        guard token.utf8.count == tokenLength, token.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) }) else {
            return nil
        }
        return stem
    }

    private static func isOwnRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && info.st_uid == geteuid()
    }
}
