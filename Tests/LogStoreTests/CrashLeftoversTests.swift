import Foundation
import Glibc
import LogStore
import Testing

/// What a killed process leaves behind is removed later, and nothing else is.
///
/// An export's temporary files (`.<name>.<token>.logstore-<kind>` beside the target): its lock goes
/// with the process, so the next export into the directory removes them. Sets still locked (a
/// running export), files of other users or of other forms, and a set too new to have been locked
/// yet stay. `CrashConsistencyTests` kills real exports and checks the same. A manifest write's
/// temporary file (`.manifest.json.<UUID>.tmp`) goes at the next open by the store's only writer.
@Suite("Crash leftovers")
struct CrashLeftoversTests {
    /// A set's member beside `directory/target` (a line of text), `age` seconds old.
    @discardableResult
    static func plant(_ directory: URL, _ target: String, token: String, kind: String, age: TimeInterval = 0) throws -> String {
        let name = ".\(target).\(token).logstore-\(kind)"
        let url = directory.appendingPathComponent(name)
        try Data("left by a killed export".utf8).write(to: url)
        if age > 0 {
            let then = Date().addingTimeInterval(-age)
            try FileManager.default.setAttributes([.modificationDate: then], ofItemAtPath: url.path)
        }
        return name
    }

    @Test(arguments: [ExportFormat.archive, .text])
    func theNextExportRemovesWhatAKilledOneLeftAndNothingElse(format: ExportFormat) async throws {
        try await withTemporaryStore { store, url in
            store.storeMessage(label: "app", level: .info, message: "kept")
            try await store.flush()
            let exports = url.deletingLastPathComponent().appendingPathComponent("exports", isDirectory: true)
            try FileManager.default.createDirectory(at: exports, withIntermediateDirectories: false)

            // Abandoned: an unlocked partial file with its database copy and that copy's WAL.
            for kind in ["partial", "database", "database-wal"] {
                try Self.plant(exports, "old.lsarchive", token: "0abcdefghij12", kind: kind)
            }
            // Abandoned before its lock: only a `new` file, older than the grace period.
            try Self.plant(exports, "older.lsarchive", token: "0abcdefghij34", kind: "new", age: 120)
            // Running: its partial file locked, as a live export holds it.
            let running = [
                try Self.plant(exports, "live.lsarchive", token: "0abcdefghij56", kind: "partial"),
                try Self.plant(exports, "live.lsarchive", token: "0abcdefghij56", kind: "database"),
            ]
            let lock = open(exports.appendingPathComponent(running[0]).path, O_RDWR | O_CLOEXEC)
            try #require(lock >= 0)
            defer { close(lock) }
            try #require(flock(lock, LOCK_EX | LOCK_NB) == 0)
            // Being created right now: a `new` file within the grace period.
            let fresh = try Self.plant(exports, "fresh.lsarchive", token: "0abcdefghij78", kind: "new")
            // Not the library's: other forms, and a set of the right form owned by someone else.
            let others = [".notes", ".my.file.logstore-partial", "plain.txt"]
            for name in others { try Data("mine".utf8).write(to: exports.appendingPathComponent(name)) }
            let foreign = try Self.plant(exports, "foreign.lsarchive", token: "0abcdefghij90", kind: "partial")
            try #require(chown(exports.appendingPathComponent(foreign).path, 65_534, 65_534) == 0 || geteuid() != 0)

            _ = try await store.export(to: exports.appendingPathComponent("new.export"), format: format)

            var expected = Set(running + [fresh] + others + ["new.export"])
            if geteuid() == 0 { expected.insert(foreign) }
            #expect(Set(try directoryListing(exports)) == expected)
        }
    }

    @Test func theNextSoleWriterRemovesAManifestWriteAKilledProcessLeft() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { _ in }
            let abandoned = ".manifest.json.\(UUID().uuidString).tmp"
            let others = [".manifest.json.notes.tmp", ".manifest.json.\(UUID().uuidString).bak"]
            for name in [abandoned] + others {
                try Data("{}".utf8).write(to: url.appendingPathComponent(name))
            }
            let before = Set(try directoryListing(url))
            // A reader never changes the directory.
            try await withStore(at: url, options: [.readonly]) { _ in }
            #expect(Set(try directoryListing(url)) == before)
            try await withStore(at: url) { store in
                let listing = try directoryListing(url)
                #expect(!listing.contains(abandoned))
                #expect(Set(others).isSubset(of: listing))
                // The manifest itself is whole: the store still knows its identity.
                #expect(try await store.info().storeVersion == .store)
            }
        }
    }
}
