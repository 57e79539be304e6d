import Foundation
import Glibc
import LogStore
import Testing

/// Damaged and crafted archives (`Fixtures/hostile-archives/`, made by its `make.py`; its README
/// says what each is): every one gives its typed error within a time bound, and none writes
/// beside the archive, changes it, or leaves its extraction directory behind.
@Suite("Hostile archives")
struct HostileArchiveTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/hostile-archives")
    static let validArchive = directory.deletingLastPathComponent().appendingPathComponent("archive-v1.lsarchive")

    /// Where `ArchiveScratchDirectory` extracts archives (see its doc comment).
    static let scratchBase = FileManager.default.temporaryDirectory
        .appendingPathComponent("logstore-archives-\(geteuid())")
    /// The body file the slim fixtures keep (make.py's `KEPT_BLOB`).
    static let keptBody = "89e2a2605d493437ed8b755e340515ef6408e916"
    /// Where `escaping-key` and `planted-view` aim.
    static let pwned = ["/tmp/logstore-pwned", "/tmp/logstore-pwned.so"]

    enum Outcome: Sendable {
        /// Opens; its inline bodies and the body files named read.
        case opens(bodyFiles: [String])
        /// Opening throws this kind of error, its description containing `reason`.
        case fails(LogStoreError.Kind, String)
        /// Opens (bodies are read lazily), but reading the body `key` throws `storeInvalid`.
        case bodyFails(String, String)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let outcome: Outcome
        var testDescription: String { name }

        static func invalid(_ name: String, _ reason: String) -> Case { Case(name: name, outcome: .fails(.storeInvalid, reason)) }
    }

    static let cases: [Case] = [
        Case(name: "valid-slim", outcome: .opens(bodyFiles: [keptBody])),
        Case(name: "valid-bare", outcome: .opens(bodyFiles: [])),
        .invalid("truncated", "archive is damaged"),
        .invalid("truncated-first-page", "archive is damaged"),
        .invalid("bit-flipped", "database chunk 0 fails its checksum"),
        .invalid("bit-flipped-page", "archive is damaged"),
        .invalid("bit-flipped-btree", "archive is damaged"),
        Case(name: "bad-blob-checksum", outcome: .bodyFails(keptBody, "fail their checksum")),
        .invalid("decompression-bomb", "decompresses to more than the 577536 bytes"),
        .invalid("short-chunk", "decompresses to 288768 bytes, its record says 577536"),
        .invalid("chunk-not-zlib", "not valid zlib data"),
        .invalid("chunk-size-mismatch", "database chunk 0 holds"),
        .invalid("absurd-sizes", "bytes of content, more than"),
        .invalid("absurd-counts", "impossible counts"),
        .invalid("absurd-chunk-size", "chunk 0 impossible sizes"),
        .invalid("negative-size", "negative sizes"),
        .invalid("overflowing-sizes", "more than 9223372036854775807 bytes of content"),
        .invalid("duplicate-blob-entry", "names a body twice"),
        Case(name: "newer-format", outcome: .fails(.unsupportedVersion, "version 2.0.0")),
        .invalid("no-format-version", "no archive format version"),
        Case(name: "newer-schema", outcome: .fails(.unsupportedVersion, "version 99.0.0")),
        Case(name: "newer-schema-inner", outcome: .fails(.unsupportedVersion, "version 99.0.0")),
        .invalid("older-schema", "archives start at"),
        .invalid("schema-mismatch", "disagree on the schema version"),
        .invalid("planted-trigger", "holds what a store's never does: trigger evil"),
        .invalid("planted-view", "holds what a store's never does: view evil"),
        .invalid("altered-index", "defines index messages_by_level differently"),
        .invalid("planted-partition", "defines table message_search_7 differently"),
        .invalid("orphan-partition-table", "holds what a store's never does: table message_search_7_data"),
        .invalid("inner-bit-flipped-page", "database is damaged"),
        .invalid("inner-not-sqlite", "database is damaged"),
        Case(name: "inner-wal", outcome: .opens(bodyFiles: [])),
        .invalid("planted-outer-view", "holds what an archive never does: view evil"),
        .invalid("planted-outer-trigger", "holds what an archive never does: trigger evil"),
        .invalid("planted-outer-index", "holds what an archive never does: index evil"),
        .invalid("altered-outer-table", "not defined as an archive's"),
        .invalid("missing-table", "tables are missing"),
        .invalid("escaping-key", "not a SHA-1 key"),
        .invalid("extra-blob", "a body its info record does not list"),
        .invalid("missing-blob", "bodies its info record lists are missing"),
        .invalid("missing-chunk", "database chunks are not those its info record lists"),
        .invalid("info-not-json", "info record is not valid"),
        .invalid("info-wrong-type", "info record is not valid"),
        .invalid("info-missing", "info record is missing"),
        .invalid("not-sqlite", "not a SQLite file"),
        .invalid("empty", "not a SQLite file"),
        .invalid("other-sqlite", "not a LogStore archive"),
    ]

    @Test func everyFixtureHasItsExpectedOutcome() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
            .filter { $0.hasSuffix(".lsarchive") }.map { String($0.dropLast(".lsarchive".count)) }
        #expect(Set(names) == Set(Self.cases.map(\.name)))
        #expect(Self.cases.count == Set(Self.cases.map(\.name)).count)
    }

    @Test(arguments: cases)
    func givesItsTypedErrorAndWritesNothing(_ fixture: Case) async throws {
        try await Self.open(Self.directory.appendingPathComponent("\(fixture.name).lsarchive")) { archive in
            try await Self.expect(fixture.outcome, opening: archive)
        }
        for path in Self.pwned { #expect(!FileManager.default.fileExists(atPath: path), "\(path) was written") }
    }

    /// A valid archive with lowered limits: each bound refuses it before anything is extracted.
    @Test(arguments: [
        (ArchiveLimits(maximumInfoSize: 100), "its info record is more than the 100 bytes allowed"),
        (ArchiveLimits(maximumContentSize: 1_000), "bytes of content, more than the 1000 allowed"),
        (ArchiveLimits(maximumBodySize: 1_000), "bodies impossible sizes"),
    ])
    func limitsRefuseAValidArchive(_ limits: ArchiveLimits, _ reason: String) async throws {
        try await Self.open(Self.validArchive) { archive in
            try await Self.expect(.fails(.storeInvalid, reason), opening: archive, limits: limits)
        }
    }

    /// A crashed process leaves its extraction directory with its lock free: the next open of
    /// any archive removes it.
    @Test func aDirectoryLeftByACrashIsRemovedAtTheNextOpen() async throws {
        // Owner-only, as the library makes it (it refuses any other): mkdir leaves an existing one be.
        if mkdir(Self.scratchBase.path, 0o700) != 0 { #expect(errno == EEXIST) }
        let stale = Self.scratchBase.appendingPathComponent("archive-crashed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: stale, withIntermediateDirectories: false)
        try Data().write(to: stale.appendingPathComponent("lock"))
        try Data("left by a crash".utf8).write(to: stale.appendingPathComponent("store.sqlite"))
        try await Self.open(Self.validArchive) { archive in
            let store = try await withinTimeLimit(seconds: 90) { try await LogStore(archiveURL: archive) }
            #expect(!FileManager.default.fileExists(atPath: stale.path))
            #expect(try await store.info().messageCount > 0)
            try await store.close()
        }
    }

    // MARK: Helpers

    /// Runs `body` on a copy of `fixture` alone in a fresh directory, then checks that the copy is
    /// unchanged, nothing appeared beside it, and no extraction directory of its open remains.
    static func open(_ fixture: URL, _ body: (URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent(fixture.lastPathComponent)
            try FileManager.default.copyItem(at: fixture, to: copy)
            let original = try Data(contentsOf: copy)
            let before = scratchDirectories()
            try await body(copy)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [copy.lastPathComponent])
            #expect(try Data(contentsOf: copy) == original, "the archive was changed")
            #expect(abandonedDirectories(since: before).isEmpty, "an extraction directory was left behind")
        }
    }

    static func expect(_ outcome: Outcome, opening archive: URL, limits: ArchiveLimits = ArchiveLimits()) async throws {
        // Inside a time bound: a decompression bomb or a corrupt page must not make it hang. Alone
        // each takes milliseconds; the bound is generous because, in the full suite on a loaded
        // 2-core machine, the cooperative pool that resumes this task can be busy for tens of seconds.
        let result = try await withinTimeLimit(seconds: 90) { () async -> Result<LogStore, any Error> in
            do { return .success(try await LogStore(archiveURL: archive, limits: limits)) } catch { return .failure(error) }
        }
        switch (outcome, result) {
        case (.fails(let kind, let reason), .failure(let error)):
            let typed = try #require(error as? LogStoreError, "not a LogStoreError: \(error)")
            #expect(typed.kind == kind, "\(typed)")
            #expect(typed.description.contains(reason), "\(typed)")
        case (.opens(let files), .success(let store)):
            let inline = try await store.blobs(limit: 100).filter { $0.storage == .inline }.map(\.key)
            #expect(!inline.isEmpty)
            #expect(try await store.count(MessageQuery(includesTaskMessages: true)) == 438)
            for key in inline + files { #expect(try await store.blobData(forKey: key) != nil) }
            try await store.close()
        case (.bodyFails(let key, let reason), .success(let store)):
            do {
                _ = try await store.blobData(forKey: key)
                Issue.record("reading body \(key) did not fail")
            } catch let error as LogStoreError {
                #expect(error.kind == .storeInvalid, "\(error)")
                #expect(error.description.contains(reason), "\(error)")
            }
            try await store.close()
        case (_, .success(let store)):
            try await store.close()
            Issue.record("opened; expected \(outcome)")
        case (_, .failure(let error)):
            Issue.record("expected \(outcome), got \(error)")
        }
    }

    /// The extraction directories now present.
    static func scratchDirectories() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: scratchBase.path)) ?? []
        return Set(names.filter { $0.hasPrefix("archive-") })
    }

    /// Directories that appeared since `before` and whose lock nobody holds: tests running in
    /// parallel create their own, but theirs are locked while in use (the library creates the
    /// lock file already locked) and gone once closed, so only a directory that a failed open
    /// abandoned has a free lock. `archive-crashed-*` ones are the crash test's on purpose.
    static func abandonedDirectories(since before: Set<String>) -> [String] {
        scratchDirectories().subtracting(before).filter { name in
            guard !name.hasPrefix("archive-crashed-") else { return false }
            let lock = scratchBase.appendingPathComponent(name).appendingPathComponent("lock").path
            let descriptor = Glibc.open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            // No lock file: being created or removed right now by another test's open or close.
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            return flock(descriptor, LOCK_EX | LOCK_NB) == 0
        }
    }
}
