import Foundation
import Glibc
import LogStore
import Testing

/// Every kind of damaged or hostile store a user can hand the library, one row each: a copy of a
/// fixture (or of a store the test makes), damaged in its own temporary directory, then opened
/// read-write, read-only and by `logstore info`. Each row names its outcome: a typed error, or a
/// documented recovery. Never a crash, and nothing the user gave is deleted or changed, except
/// what a recovery is documented to write.
///
/// Hostile archives are `HostileArchiveTests`' (`Fixtures/hostile-archives/`); they are not
/// repeated here.
@Suite("Corrupt input")
struct CorruptInputTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    /// The body of `store-v6.logstore` kept as a file (Fixtures/README.md).
    static let bodyFile = "e6b02dc234ea36d20f1a1cfb424569781f76a2e9"
    static let pageSize = 4096

    /// What opening the damaged store does.
    enum Outcome: Sendable {
        /// Opening throws this kind of error, its description containing the text; nothing
        /// changes but the named files.
        case fails(LogStoreError.Kind, String, changes: Set<String> = [])
        /// It opens and answers `info()` and a query; only the named files may change or appear
        /// (a read-write open records its session in `logs.sqlite`).
        case opens(changes: Set<String>)
        /// It opens (SQLite has no page checksums: damage past the schema shows when read), and
        /// `info()` and a query either answer or throw a typed error naming the damage
        /// (`storeInvalid`, or `database` with SQLite's "malformed"); only the named files change.
        case opensReportingDamage(changes: Set<String>)
    }

    /// What reading the body file of `store-v6.logstore` gives once the store is open.
    enum BodyOutcome: Sendable {
        case notChecked
        /// Its bytes, whole (they hash to the key).
        case reads
        /// This kind of error, its description containing the text.
        case fails(LogStoreError.Kind, String)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var fixture = "store-v6.logstore"
        /// Damages the copy at the URL (the store directory's path).
        let damage: @Sendable (URL) async throws -> Void
        let readWrite: Outcome
        let readOnly: Outcome
        var body: BodyOutcome = .notChecked
        var testDescription: String { name }
    }

    static let migrated: Outcome = .opens(changes: ["logs.sqlite"])
    static let wal: Set<String> = ["logs.sqlite-wal", "logs.sqlite-shm"]
    static let shm: Set<String> = ["logs.sqlite-shm"]

    static let cases: [Case] = [
        // The database
        Case(name: "database truncated to 0 bytes", damage: { try truncate(database($0), to: 0) },
             readWrite: .fails(.storeInvalid, "logs.sqlite is empty and blobs/ holds bodies"),
             readOnly: .fails(.storeInvalid, "logs.sqlite is empty and blobs/ holds bodies")),
        Case(name: "database truncated to 0 bytes, no bodies", fixture: "store-v1.logstore",
             damage: { try truncate(database($0), to: 0) },
             readWrite: migrated, readOnly: .fails(.storeInvalid, "logs.sqlite is empty")),
        Case(name: "database truncated mid-header", damage: { try truncate(database($0), to: 50) },
             readWrite: .fails(.storeInvalid, "not a valid SQLite database"),
             readOnly: .fails(.storeInvalid, "not a valid SQLite database")),
        Case(name: "database truncated mid-page", damage: { try truncate(database($0), to: 5 * pageSize + 100) },
             readWrite: .fails(.storeInvalid, "not a valid SQLite database"),
             readOnly: .fails(.storeInvalid, "not a valid SQLite database")),
        Case(name: "database missing its last pages", damage: { url in
                 let size = try FileManager.default.attributesOfItem(atPath: database(url).path)[.size] as? Int ?? 0
                 try truncate(database(url), to: size - 8 * pageSize)
             },
             readWrite: .fails(.storeInvalid, "not a valid SQLite database"),
             readOnly: .fails(.storeInvalid, "not a valid SQLite database")),
        Case(name: "bit flipped in the header", damage: { try flip(database($0), at: 0) },
             readWrite: .fails(.storeInvalid, "not a valid SQLite database"),
             readOnly: .fails(.storeInvalid, "not a valid SQLite database")),
        Case(name: "bit flipped in the schema b-tree page", damage: { try flip(database($0), at: 100) },
             readWrite: .fails(.storeInvalid, "not a valid SQLite database"),
             readOnly: .fails(.storeInvalid, "not a valid SQLite database")),
        Case(name: "bit flipped in a b-tree page header", damage: { try flip(database($0), at: 2 * pageSize) },
             readWrite: .fails(.storeInvalid, "not migrated"),
             readOnly: .opensReportingDamage(changes: [])),
        Case(name: "bit flipped in a data page", damage: { try flip(database($0), at: 20 * pageSize + 2000) },
             readWrite: migrated, readOnly: .opens(changes: [])),
        Case(name: "schema version from the future", damage: { try setUserVersion(database($0), 99) },
             readWrite: .fails(.unsupportedVersion, "version 99"),
             readOnly: .fails(.unsupportedVersion, "version 99")),
        Case(name: "not a database", damage: { try Data(repeating: 0x41, count: 3 * pageSize).write(to: database($0)) },
             readWrite: .fails(.storeInvalid, "not a valid SQLite database"),
             readOnly: .fails(.storeInvalid, "not a valid SQLite database")),
        Case(name: "database missing", damage: { try FileManager.default.removeItem(at: database($0)) },
             readWrite: .fails(.storeInvalid, "logs.sqlite is missing"),
             readOnly: .fails(.storeInvalid, "logs.sqlite is missing")),
        Case(name: "database is a symbolic link", damage: { url in
                 let elsewhere = url.deletingLastPathComponent().appendingPathComponent("elsewhere.sqlite")
                 try FileManager.default.moveItem(at: database(url), to: elsewhere)
                 try FileManager.default.createSymbolicLink(at: database(url), withDestinationURL: elsewhere)
             },
             readWrite: .fails(.storeInvalid, "logs.sqlite is a symbolic link"),
             readOnly: .fails(.storeInvalid, "logs.sqlite is a symbolic link")),
        Case(name: "database is a directory", damage: { url in
                 try FileManager.default.removeItem(at: database(url))
                 try FileManager.default.createDirectory(at: database(url), withIntermediateDirectories: false)
             },
             readWrite: .fails(.storeInvalid, "logs.sqlite is not a file"),
             readOnly: .fails(.storeInvalid, "logs.sqlite is not a file")),
        // Its WAL files
        // A WAL carries no identity of its database: the store's own (store_identity) tells. Both
        // leave the WAL and the database untouched; SQLite makes its index of the WAL (-shm).
        Case(name: "WAL copied from another, new store", damage: { try await plantForeignWAL(in: $0, established: false) },
             readWrite: .fails(.storeInvalid, "holds the rows of another store", changes: shm),
             readOnly: .fails(.storeInvalid, "holds the rows of another store", changes: shm)),
        // Its frames over this database's pages: a schema of the other store's, tables of this one's.
        Case(name: "WAL copied from another store, checkpointed before", damage: { try await plantForeignWAL(in: $0, established: true) },
             readWrite: .fails(.storeInvalid, "logs.sqlite", changes: shm),
             readOnly: .fails(.storeInvalid, "logs.sqlite", changes: shm)),
        // The hardest: a twin of this store (the same pages, another identity), whose WAL holds
        // only what it logged since its last checkpoint. Only store_identity can tell.
        Case(name: "WAL copied from a twin store", damage: { try await plantTwinWAL(in: $0) },
             readWrite: .fails(.storeInvalid, "holds the rows of another store", changes: shm),
             readOnly: .fails(.storeInvalid, "holds the rows of another store", changes: shm)),
        Case(name: "garbage shared-memory file", damage: { url in
                 try Data(repeating: 0xA5, count: 32_768).write(to: url.appendingPathComponent("logs.sqlite-shm"))
             },
             readWrite: .opens(changes: wal.union(["logs.sqlite"])),
             readOnly: .opens(changes: wal)),
        // The manifest
        Case(name: "garbage manifest", damage: { try Data("{\"storeId\": 42, ".utf8).write(to: manifest($0)) },
             readWrite: .fails(.storeInvalid, "manifest.json is not a valid manifest"),
             readOnly: .fails(.storeInvalid, "manifest.json is not a valid manifest")),
        Case(name: "binary manifest", damage: { try Data([0xFF, 0xFE, 0x00, 0x01]).write(to: manifest($0)) },
             readWrite: .fails(.storeInvalid, "manifest.json is not a valid manifest"),
             readOnly: .fails(.storeInvalid, "manifest.json is not a valid manifest")),
        Case(name: "manifest from a future format", damage: { url in
                 let text = try String(contentsOf: manifest(url), encoding: .utf8)
                 try Data(text.replacingOccurrences(of: "\"1.0.0\"", with: "\"2.0.0\"").utf8).write(to: manifest(url))
             },
             readWrite: .fails(.unsupportedVersion, "version 2.0.0"),
             readOnly: .fails(.unsupportedVersion, "version 2.0.0")),
        Case(name: "manifest missing", damage: { try FileManager.default.removeItem(at: manifest($0)) },
             readWrite: .fails(.storeInvalid, "manifest.json is missing"),
             readOnly: .fails(.storeInvalid, "manifest.json is missing")),
        // The body files
        Case(name: "blobs directory missing", damage: { try FileManager.default.removeItem(at: blobs($0)) },
             readWrite: migrated, readOnly: .opens(changes: []),
             body: .fails(.storeInvalid, "its file is missing")),
        Case(name: "body file truncated", damage: { try truncate(blobs($0).appendingPathComponent(bodyFile), to: 1000) },
             readWrite: migrated, readOnly: .opens(changes: []),
             body: .fails(.storeInvalid, "blob \(bodyFile)")),
        Case(name: "body file not matching its key", damage: { url in
                 let file = blobs(url).appendingPathComponent(bodyFile)
                 try flip(file, at: 40_000)
             },
             readWrite: migrated, readOnly: .opens(changes: []),
             body: .fails(.storeInvalid, "blob \(bodyFile)")),
        Case(name: "undamaged (the control)", damage: { _ in },
             readWrite: migrated, readOnly: .opens(changes: []), body: .reads),
        // The directory
        Case(name: "a file where the store directory should be", damage: { url in
                 try FileManager.default.removeItem(at: url)
                 try Data("not a store".utf8).write(to: url)
             },
             readWrite: .fails(.storeInvalid, "it is a file, not a store directory"),
             readOnly: .fails(.storeInvalid, "it is a file, not a store directory")),
        Case(name: "store owned by another user", damage: { try changeOwner(of: $0, to: nobody) },
             readWrite: .fails(.fileSystem, "owned by uid \(nobody)"), readOnly: .opens(changes: [])),
        Case(name: "database owned by another user", damage: { try changeOwner(of: database($0), to: nobody) },
             readWrite: .fails(.fileSystem, "owned by uid \(nobody)"), readOnly: .opens(changes: [])),
    ]

    @Test(arguments: cases)
    func damagedStore(_ row: Case) async throws {
        if row.name.contains("another user"), geteuid() != 0 {
            print("CorruptInputTests: skipping \"\(row.name)\": it needs root to give files away")
            return
        }
        try await withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("damaged.logstore")
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(row.fixture), to: url)
            try await row.damage(url)
            let before = try Self.snapshot(directory)

            try await Self.check(row.readOnly, body: row.body, url: url, options: [.readonly], before: before, in: directory)
            let beforeCLI = try Self.snapshot(directory)
            try await Self.checkCLI(row.readOnly, url: url)
            #expect(try Self.changedPaths(from: beforeCLI, in: directory).isSubset(of: Self.allowed(row.readOnly)),
                    "logstore info changed the store")
            try await Self.check(row.readWrite, body: row.body, url: url, options: [], before: before, in: directory)
        }
    }

    /// Opens `url` with `options`, checks the outcome, then that only the files it allows changed.
    static func check(
        _ outcome: Outcome, body: BodyOutcome, url: URL, options: LogStore.Options,
        before: [String: Data], in directory: URL
    ) async throws {
        let mode = options.contains(.readonly) ? "read-only" : "read-write"
        switch outcome {
        case .fails(let kind, let text, _):
            do {
                let store = try await LogStore(storeURL: url, options: options)
                try await store.close()
                Issue.record("\(mode): opened; expected \(kind) containing \"\(text)\"")
            } catch let error as LogStoreError {
                #expect(error.kind == kind, "\(mode): \(error)")
                #expect(error.description.contains(text), "\(mode): \(error)")
            }
            let changed = try changedPaths(from: before, in: directory)
            #expect(changed.isSubset(of: allowed(outcome)), "\(mode): the refused open changed \(changed.sorted())")
        case .opens, .opensReportingDamage:
            var damaged = false
            if case .opensReportingDamage = outcome { damaged = true }
            try await withStore(at: url, options: options) { store in
                if damaged {
                    await expectAnswerOrDamage(mode) { _ = try await store.info() }
                    await expectAnswerOrDamage(mode) { _ = try await allMessages(store) }
                    return
                }
                _ = try await store.info()
                _ = try await store.messages(MessageQuery(limit: 5))
                switch body {
                case .notChecked: break
                case .reads:
                    let data = try #require(try await store.blobData(forKey: bodyFile))
                    #expect(data.count == 1_835_770)
                case .fails(let kind, let text):
                    do {
                        let data = try await store.blobData(forKey: bodyFile)
                        Issue.record("\(mode): read \(data?.count ?? -1) bytes; expected \(kind)")
                    } catch let error as LogStoreError {
                        #expect(error.kind == kind, "\(mode): \(error)")
                        #expect(error.description.contains(text), "\(mode): \(error)")
                    }
                }
            }
            let changed = try changedPaths(from: before, in: directory)
            #expect(changed.isSubset(of: allowed(outcome)), "\(mode): changed \(changed.sorted())")
        }
    }

    /// The paths under `directory` whose entries differ from `before`.
    static func changedPaths(from before: [String: Data], in directory: URL) throws -> Set<String> {
        let after = try snapshot(directory)
        return Set(after.keys).union(before.keys).filter { after[$0] != before[$0] }
    }

    /// The paths an outcome lets change.
    static func allowed(_ outcome: Outcome) -> Set<String> {
        switch outcome {
        case .fails(_, _, let changes), .opens(let changes), .opensReportingDamage(let changes):
            Set(changes.map { "damaged.logstore/" + $0 })
        }
    }

    /// `body` answers, or throws a store error that names the damage.
    static func expectAnswerOrDamage(_ mode: String, _ body: () async throws -> Void) async {
        do {
            try await body()
        } catch let error as LogStoreError {
            let named = error.kind == .storeInvalid || error.databaseError?.isCorrupt == true
            #expect(named, "\(mode): \(error)")
        } catch {
            Issue.record("\(mode): an untyped error: \(error)")
        }
    }

    /// `logstore info` reads read-only: it fails when the read-only open does, in one line with a
    /// non-zero status.
    static func checkCLI(_ outcome: Outcome, url: URL) async throws {
        let run = await CLIRun.run(["info", url.path], now: Date())
        switch outcome {
        case .fails:
            #expect(run.status != 0)
            #expect(run.error.hasPrefix("logstore: "), "\(run.error)")
            #expect(run.error.split(separator: "\n").count == 1, "\(run.error)")
            #expect(!run.error.contains("Fatal error"))
        case .opens:
            #expect(run.status == 0, "\(run.error)")
        case .opensReportingDamage:
            // Answers, or fails in one line.
            #expect(run.status == 0 || run.error.hasPrefix("logstore: "), "\(run.error)")
            #expect(run.error.split(separator: "\n").count <= 1, "\(run.error)")
        }
    }

    // MARK: Damage

    static let nobody: uid_t = 65_534

    static func database(_ url: URL) -> URL { url.appendingPathComponent("logs.sqlite") }
    static func manifest(_ url: URL) -> URL { url.appendingPathComponent("manifest.json") }
    static func blobs(_ url: URL) -> URL { url.appendingPathComponent("blobs") }

    static func truncate(_ url: URL, to size: Int) throws {
        guard Glibc.truncate(url.path, off_t(size)) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    /// Inverts one byte (every bit of it) at `offset`.
    static func flip(_ url: URL, at offset: Int) throws {
        var data = try Data(contentsOf: url)
        data[offset] ^= 0xFF
        try data.write(to: url)
    }

    /// Writes SQLite's `user_version` (header bytes 60–63, big-endian), as a newer library would.
    static func setUserVersion(_ url: URL, _ version: UInt32) throws {
        var data = try Data(contentsOf: url)
        withUnsafeBytes(of: version.bigEndian) { data.replaceSubrange(60..<64, with: $0) }
        try data.write(to: url)
    }

    /// Copies the WAL of another, open store beside the database: of a new one (its WAL holds
    /// every page), or of one closed (checkpointed) and opened again (its WAL holds only what
    /// changed since).
    static func plantForeignWAL(in url: URL, established: Bool) async throws {
        let other = url.deletingLastPathComponent().appendingPathComponent("other.logstore")
        if established {
            try await withStore(at: other) { store in
                for i in 0..<500 { store.storeMessage(label: "other", level: .info, message: "before \(i)") }
            }
        }
        try await withStore(at: other) { store in
            for i in 0..<50 { store.storeMessage(label: "other", level: .info, message: "other \(i)") }
            try await store.flush()
            try FileManager.default.copyItem(
                at: other.appendingPathComponent("logs.sqlite-wal"), to: url.appendingPathComponent("logs.sqlite-wal"))
        }
        try FileManager.default.removeItem(at: other)
    }

    /// Makes this store current (migrated, checkpointed), copies it into a twin with another
    /// identity (its manifest and its `store_identity` row), logs into the twin and copies the
    /// twin's WAL (while it is open) beside this store's database.
    static func plantTwinWAL(in url: URL) async throws {
        try await withStore(at: url) { _ in }
        let twin = url.deletingLastPathComponent().appendingPathComponent("twin.logstore")
        try FileManager.default.copyItem(at: url, to: twin)
        let manifestURL = twin.appendingPathComponent("manifest.json")
        let manifest = try String(contentsOf: manifestURL, encoding: .utf8)
        let original = try await withStore(at: url, options: [.readonly]) { try await $0.info().storeID }
        let other = UUID().uuidString
        try manifest.replacingOccurrences(of: original.uuidString, with: other).write(to: manifestURL, atomically: true, encoding: .utf8)
        _ = try await onOwnThread {
            try SQLiteShell.run(database(twin), "UPDATE store_identity SET store_id = '\(other)'")
        }
        try await withStore(at: twin) { store in
            for i in 0..<50 { store.storeMessage(label: "twin", level: .info, message: "twin \(i)") }
            try await store.flush()
            try FileManager.default.copyItem(
                at: twin.appendingPathComponent("logs.sqlite-wal"), to: url.appendingPathComponent("logs.sqlite-wal"))
        }
        try FileManager.default.removeItem(at: twin)
    }

    static func changeOwner(of url: URL, to owner: uid_t) throws {
        var paths = [url.path]
        if let enumerator = FileManager.default.enumerator(atPath: url.path) {
            while let name = enumerator.nextObject() as? String { paths.append(url.appendingPathComponent(name).path) }
        }
        for path in paths where lchown(path, owner, owner) != 0 {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
    }

    // MARK: Snapshots

    /// Every entry under `directory` by relative path: a file's bytes, a link's target, or
    /// nothing for a directory.
    static func snapshot(_ directory: URL) throws -> [String: Data] {
        var entries: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return entries }
        while let name = enumerator.nextObject() as? String {
            let path = directory.appendingPathComponent(name).path
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG: entries[name] = try Data(contentsOf: URL(fileURLWithPath: path))
            case S_IFLNK: entries[name] = Data(try FileManager.default.destinationOfSymbolicLink(atPath: path).utf8)
            default: entries[name] = Data("directory".utf8)
            }
        }
        return entries
    }
}
