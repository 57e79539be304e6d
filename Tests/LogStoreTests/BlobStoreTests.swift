import Foundation
import Glibc
import Testing

@testable import LogStore

@Suite("Blob store")
struct BlobStoreTests {

    // MARK: Dedup and link counts

    @Test func sameBodyStoredOften() async throws {
        try await withBlobStore { fixture in
            let body = blobRandomBytes(40_000, seed: 1)  // incompressible, larger than inline: a file
            var references: [BlobReference] = []
            for _ in 0..<10 {
                try fixture.commit { blobs in
                    for _ in 0..<10 { references.append(try blobs.store(body)) }
                }
            }
            let key = SHA1.hash(body)
            #expect(Set(references.map(\.rowID)).count == 1)
            #expect(references.allSatisfy { $0.key == key && $0.size == body.count && $0.decompressedSize == body.count })
            #expect(try fixture.rowCount() == 1)
            #expect(try fixture.row(key)?.linkCount == 100)
            #expect(try fixture.blobFileNames() == [key.hex])
            #expect(try fixture.read(key.hex) == Data(body))
        }
    }

    @Test func dedupHitWritesNoFile() async throws {
        try await withBlobStore { fixture in
            let body = blobRandomBytes(40_000, seed: 2)
            let key = try fixture.commit { try $0.store(body) }.key
            let file = fixture.fileURL(key)
            let past = Date(timeIntervalSinceNow: -3600)
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: file.path)
            try fixture.commit { blobs in _ = try blobs.store(Data(body)) }
            let modified = try #require(Files.modificationDate(file))
            #expect(abs(modified.timeIntervalSince(past)) < 1)
            #expect(try fixture.row(key)?.linkCount == 2)
        }
    }

    @Test func unlinkToZeroRemovesRowAndFileAfterCommit() async throws {
        try await withBlobStore { fixture in
            let body = blobRandomBytes(30_000, seed: 3)
            let reference = try fixture.commit { blobs in
                _ = try blobs.store(body)
                return try blobs.store(body)
            }
            let file = fixture.fileURL(reference.key)
            #expect(try fixture.commit { try $0.unlink(rowID: reference.rowID) } == 1)
            #expect(try fixture.row(reference.key)?.linkCount == 1)
            #expect(Files.exists(file))

            try fixture.connection.transaction {
                let links = try fixture.blobs.unlink(key: reference.key)
                #expect(links == 0)
                #expect(Files.exists(file))  // inside the transaction
            }
            #expect(try fixture.row(reference.key) == nil)
            #expect(Files.exists(file))  // committed, but didCommit not called yet
            #expect(fixture.blobs.didCommit().isEmpty)
            #expect(!Files.exists(file))
            #expect(try fixture.read(reference.key.hex) == nil)

            #expect(try fixture.commit { try $0.unlink(rowID: reference.rowID) } == nil)
            #expect(try fixture.commit { try $0.unlink(key: reference.key) } == nil)
        }
    }

    @Test func unlinkOfAnInlineBlobDeletesItsRow() async throws {
        try await withBlobStore { fixture in
            let reference = try fixture.commit { try $0.store(Array("small body".utf8)) }
            #expect(try fixture.row(reference.key)?.isInline == true)
            #expect(try fixture.commit { try $0.unlink(rowID: reference.rowID) } == 0)
            #expect(try fixture.rowCount() == 0)
        }
    }

    // MARK: Rollback

    @Test func rolledBackInsertLeavesNoRowAndNoFile() async throws {
        try await withBlobStore { fixture in
            let large = blobRandomBytes(50_000, seed: 4)
            let small = blobJSON(2_000, seed: 4)
            try fixture.rollBack { blobs in
                _ = try blobs.store(large)
                _ = try blobs.store(small)
                #expect(Files.exists(fixture.fileURL(SHA1.hash(large))))
            }
            #expect(try fixture.rowCount() == 0)
            #expect(try fixture.blobFileNames() == [])
            // The same bodies store again normally afterwards.
            try fixture.commit { blobs in _ = try blobs.store(large) }
            #expect(try fixture.blobFileNames() == [SHA1.hash(large).hex])
        }
    }

    @Test func rolledBackUnlinkKeepsTheBlob() async throws {
        try await withBlobStore { fixture in
            let body = blobRandomBytes(50_000, seed: 5)
            let reference = try fixture.commit { try $0.store(body) }
            try fixture.rollBack { blobs in
                let links = try blobs.unlink(rowID: reference.rowID)
                #expect(links == 0)
            }
            #expect(try fixture.row(reference.key)?.linkCount == 1)
            #expect(try fixture.read(reference.key.hex) == Data(body))
            // The forgotten deletion does not resurface at the next commit.
            try fixture.commit { blobs in _ = try blobs.store(Array("other".utf8)) }
            #expect(try fixture.read(reference.key.hex) == Data(body))
        }
    }

    @Test func unlinkedAndStoredAgainInOneTransaction() async throws {
        try await withBlobStore { fixture in
            let body = blobRandomBytes(50_000, seed: 6)
            let reference = try fixture.commit { try $0.store(body) }
            // Committed: the new row needs the file the deleted row had.
            try fixture.commit { blobs in
                #expect(try blobs.unlink(rowID: reference.rowID) == 0)
                _ = try blobs.store(body)
            }
            #expect(try fixture.read(reference.key.hex) == Data(body))
            // Rolled back: the original row is back and needs its file.
            try fixture.rollBack { blobs in
                #expect(try blobs.unlink(key: reference.key) == 0)
                _ = try blobs.store(body)
            }
            #expect(try fixture.row(reference.key)?.linkCount == 1)
            #expect(try fixture.read(reference.key.hex) == Data(body))
        }
    }

    @Test func storedAndUnlinkedInOneTransaction() async throws {
        try await withBlobStore { fixture in
            let body = blobRandomBytes(50_000, seed: 7)
            try fixture.commit { blobs in
                let reference = try blobs.store(body)
                #expect(try blobs.unlink(rowID: reference.rowID) == 0)
            }
            #expect(try fixture.rowCount() == 0)
            #expect(try fixture.blobFileNames() == [])
        }
    }

    @Test func failedFileWriteInsertsNothing() async throws {
        try await withBlobStore { fixture in
            // A plain file where blobs/ should be: the directory cannot be created.
            try Data().write(to: BlobStore.blobsDirectory(in: fixture.directory))
            let error = #expect(throws: LogStoreError.self) {
                try fixture.commit { blobs in _ = try blobs.store(blobRandomBytes(50_000, seed: 8)) }
            }
            #expect(error?.kind == .fileSystem)
            #expect(fixture.blobs.didRollBack().isEmpty)
            #expect(try fixture.rowCount() == 0)
            // Inline bodies need no file.
            try fixture.commit { blobs in _ = try blobs.store(Array("inline".utf8)) }
            #expect(try fixture.rowCount() == 1)
        }
    }

    @Test func blobsDirectoryIsCreatedOnDemand() async throws {
        try await withBlobStore { fixture in
            let blobsDirectory = BlobStore.blobsDirectory(in: fixture.directory)
            try fixture.commit { blobs in _ = try blobs.store(blobJSON(1_000, seed: 9)) }
            #expect(!Files.exists(blobsDirectory))  // inline only so far
            try fixture.commit { blobs in _ = try blobs.store(blobRandomBytes(20_000, seed: 9)) }
            #expect(Files.isDirectory(blobsDirectory))
            // Removed behind the store's back: created again.
            try FileManager.default.removeItem(at: blobsDirectory)
            let body = blobRandomBytes(20_000, seed: 10)
            let reference = try fixture.commit { try $0.store(body) }
            #expect(try fixture.read(reference.key.hex) == Data(body))
        }
    }

    // MARK: Inline or file, compressed or not

    @Test func inlineLimitBoundary() async throws {
        var settings = BlobStore.Settings()
        settings.isCompressionEnabled = false
        try await withBlobStore(settings: settings) { fixture in
            let limit = settings.inlineLimit
            #expect(limit == 16 * 1024)
            for (offset, expectInline) in [(-1, true), (0, true), (1, false)] {
                let body = blobJSON(limit + offset, seed: UInt64(100 + offset))
                let reference = try fixture.commit { try $0.store(body) }
                let row = try #require(try fixture.row(reference.key))
                #expect(row.size == limit + offset)
                #expect(row.compression == 0)
                #expect(row.isInline == expectInline, "stored size \(limit + offset)")
                #expect(Files.exists(fixture.fileURL(reference.key)) == !expectInline)
            }
        }
    }

    @Test func compressibleMiBEndsUpInline() async throws {
        try await withBlobStore { fixture in
            let body = blobRepetitive(1 << 20)
            let reference = try fixture.commit { try $0.store(body) }
            let row = try #require(try fixture.row(reference.key))
            #expect(row.compression == 1)
            #expect(row.isInline)
            #expect(row.size <= 16 * 1024 && row.size == reference.size)
            #expect(row.decompressedSize == 1 << 20)
            #expect(try fixture.blobFileNames() == [])
            #expect(try fixture.read(reference.key.hex, maxSize: 1 << 20) == Data(body))
        }
    }

    @Test func compressionKeptOnlyWhenSmaller() async throws {
        try await withBlobStore { fixture in
            let random = blobRandomBytes(64 * 1024, seed: 11)
            let json = blobJSON(64 * 1024, seed: 11)
            let tiny = Array("abcde".utf8)
            let empty: [UInt8] = []
            let references = try fixture.commit { blobs in
                try [random, json, tiny, empty].map { try blobs.store($0) }
            }
            let rows = try references.map { try #require(try fixture.row($0.key)) }
            #expect(rows[0].compression == 0 && rows[0].size == random.count)
            #expect(rows[1].compression == 1 && rows[1].size < json.count / 2)
            #expect(rows[2].compression == 0 && rows[2].size == tiny.count)
            #expect(rows[3].compression == 0 && rows[3].size == 0 && rows[3].isInline)
            #expect(try fixture.read(references[3].key.hex) == Data())
            #expect(references[3].key.hex == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        }
        var settings = BlobStore.Settings()
        settings.isCompressionEnabled = false
        try await withBlobStore(settings: settings) { fixture in
            let json = blobJSON(64 * 1024, seed: 12)
            let reference = try fixture.commit { try $0.store(json) }
            #expect(try fixture.row(reference.key)?.compression == 0)
            #expect(reference.size == json.count)
        }
    }

    @Test func inMemoryStoreKeepsEverythingInline() async throws {
        try await withBlobStore(inMemory: true) { fixture in
            let body = blobRandomBytes(1 << 20, seed: 13)
            let reference = try fixture.commit { try $0.store(body) }
            #expect(try fixture.row(reference.key)?.isInline == true)
            #expect(!Files.exists(BlobStore.blobsDirectory(in: fixture.directory)))
            let read = try BlobStore.data(
                forKey: reference.key.hex, connection: fixture.connection, directory: nil, maxSize: 1 << 20)
            #expect(read == Data(body))
            #expect(try fixture.commit { try $0.unlink(key: reference.key) } == 0)
        }
    }

    // MARK: Reading

    @Test func roundTripOfEveryStoredBody() async throws {
        let variants: [BlobStore.Settings] = [
            BlobStore.Settings(),
            BlobStore.Settings(isCompressionEnabled: false),
            BlobStore.Settings(inlineLimit: 100, compressionLevel: 6, durability: .unsafe),
        ]
        for settings in variants {
            try await withBlobStore(settings: settings) { fixture in
                var bodies: [[UInt8]] = []
                for size in [0, 1, 7, 100, 4_096, 16_383, 16_384, 16_385, 65_536, 300_000] {
                    bodies.append(blobRandomBytes(size, seed: UInt64(size)))
                    bodies.append(blobJSON(size, seed: UInt64(size)))
                    bodies.append(blobRepetitive(size))
                }
                let references = try fixture.commit { blobs in try bodies.map { try blobs.store($0) } }
                for (body, reference) in zip(bodies, references) {
                    #expect(reference.key == SHA1.hash(body))
                    #expect(reference.decompressedSize == body.count)
                    #expect(try fixture.row(reference.key)?.size == reference.size)
                    #expect(try fixture.read(reference.key.hex, maxSize: body.count) == Data(body))
                }
                let statistics = try BlobStore.statistics(connection: fixture.connection)
                #expect(statistics.count == Set(references.map(\.key)).count)
                #expect(statistics.storedBytes == Int64(Set(references).reduce(0) { $0 + $1.size }))
                #expect(statistics.decompressedBytes == Int64(Set(references).reduce(0) { $0 + $1.decompressedSize }))
            }
        }
    }

    @Test func malformedKeysAreRefusedBeforeAnyLookup() async throws {
        try await withBlobStore { fixture in
            let reference = try fixture.commit { try $0.store(blobRandomBytes(20_000, seed: 14)) }
            let hex = reference.key.hex
            let malformed = [
                "../x", "../" + String(hex.dropFirst(3)), hex.uppercased(), String(hex.dropLast()), hex + "0", "",
                String(hex.dropLast()) + "g", String(hex.dropLast()) + "/", " " + String(hex.dropFirst()),
            ]
            for key in malformed {
                // A directory that does not exist: only a file-system access could report it.
                let error = #expect(throws: LogStoreError.self) {
                    try BlobStore.data(
                        forKey: key, connection: fixture.connection,
                        directory: fixture.directory.appendingPathComponent("nowhere"), maxSize: 1 << 20)
                }
                #expect(error?.kind == .invalidArgument, "key \(key)")
            }
            #expect(try fixture.read(hex) != nil)
        }
    }

    @Test func missingKeyReadsAsNil() async throws {
        try await withBlobStore { fixture in
            let read = try fixture.read(SHA1.hash(Array("never stored".utf8)).hex)
            #expect(read == nil)
        }
    }

    @Test func damagedBlobsAreReportedNotReturned() async throws {
        try await withBlobStore { fixture in
            let plain = blobRandomBytes(40_000, seed: 15)  // an uncompressed file
            let packed = blobJSON(200_000, seed: 15)  // a compressed file
            let inline = blobJSON(3_000, seed: 16)  // compressed, inline
            let references = try fixture.commit { blobs in try [plain, packed, inline].map { try blobs.store($0) } }
            #expect(try fixture.row(references[1].key).map { $0.compression == 1 && !$0.isInline } == true)

            // One flipped bit in each file.
            for reference in references[0...1] {
                let url = fixture.fileURL(reference.key)
                var bytes = try Data(contentsOf: url)
                bytes[bytes.count / 2] ^= 0x01
                try bytes.write(to: url)
                try expectDamage(fixture, reference.key)
            }
            // One flipped bit inline.
            var stored = try #require(try fixture.inlineData(references[2].key))
            stored[stored.count / 2] ^= 0x01
            try fixture.setInlineData(stored, for: references[2].key)
            try expectDamage(fixture, references[2].key)

            // A truncated file, a missing file, a symbolic link in place of the file.
            let file = fixture.fileURL(references[0].key)
            try Data(plain.prefix(1000)).write(to: file)
            try expectDamage(fixture, references[0].key)
            try FileManager.default.removeItem(at: file)
            try expectDamage(fixture, references[0].key)
            try FileManager.default.createSymbolicLink(at: file, withDestinationURL: fixture.fileURL(references[1].key))
            try expectDamage(fixture, references[0].key)
        }
    }

    @Test func decompressionIsBounded() async throws {
        try await withBlobStore { fixture in
            let body = blobJSON(100_000, seed: 17)
            let reference = try fixture.commit { try $0.store(body) }
            let key = reference.key
            // The caller's bound.
            let tooLarge = #expect(throws: LogStoreError.self) { try fixture.read(key.hex, maxSize: body.count - 1) }
            #expect(tooLarge?.kind == .invalidArgument)
            #expect(try fixture.read(key.hex, maxSize: body.count) == Data(body))

            // The recorded size is the bound: a row that understates it is damaged, and so is
            // one that overstates it.
            try fixture.connection.run("UPDATE blobs SET decompressed_size = ? WHERE id = ?", [
                .integer(Int64(body.count - 10)), .integer(reference.rowID),
            ])
            try expectDamage(fixture, key)
            try fixture.connection.run("UPDATE blobs SET decompressed_size = ? WHERE id = ?", [
                .integer(Int64(body.count + 10)), .integer(reference.rowID),
            ])
            try expectDamage(fixture, key)

            // A zlib bomb (64 MiB of zeros in ~64 KiB) recorded as 1,000 bytes stops at the bound.
            let bomb = try ZlibCompressor(level: 9).compress([UInt8](repeating: 0, count: 64 << 20))
            try fixture.connection.run(
                "UPDATE blobs SET size = ?, decompressed_size = 1000, compression = 1, data = ? WHERE id = ?",
                [.integer(Int64(bomb.count)), .blob(bomb), .integer(reference.rowID)])
            try expectDamage(fixture, key)
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func storedFilesAreReadableByPythonZlib() async throws {
        try await withBlobStore { fixture in
            let bodies = [blobJSON(300_000, seed: 18), blobRandomBytes(30_000, seed: 18)]
            let references = try fixture.commit { blobs in try bodies.map { try blobs.store($0) } }
            let rows = try references.map { try #require(try fixture.row($0.key)) }
            #expect(rows.map(\.compression) == [1, 0])
            #expect(rows.allSatisfy { !$0.isInline })
            // For each file: its compression flag, then its path; prints SHA-1 and size of the body.
            let script = """
                import hashlib, sys, zlib
                args = sys.argv[1:]
                for flag, path in zip(args[0::2], args[1::2]):
                    data = open(path, 'rb').read()
                    if flag == '1':
                        data = zlib.decompress(data)
                    print(hashlib.sha1(data).hexdigest(), len(data))
                """
            var arguments = ["-c", script]
            for (row, reference) in zip(rows, references) {
                arguments += [String(row.compression), fixture.fileURL(reference.key).path]
            }
            let result = try runProcess("/usr/bin/python3", arguments)
            #expect(result.status == 0, "\(result.standardError)")
            let expected = zip(references, bodies).map { "\($0.key.hex) \($1.count)" }.joined(separator: "\n")
            #expect(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == expected)
        }
    }

    // MARK: Files

    @Test func filesAreOwnerOnly() async throws {
        try await withBlobStore { fixture in
            let reference = try fixture.commit { try $0.store(blobRandomBytes(40_000, seed: 19)) }
            #expect(permissions(of: BlobStore.blobsDirectory(in: fixture.directory)) == 0o700)
            #expect(permissions(of: fixture.fileURL(reference.key)) == 0o600)
            #expect(try fixture.blobFileNames() == [reference.key.hex])  // no temporary file left
        }
    }

    @Test func orphanCleanup() async throws {
        try await withBlobStore { fixture in
            let blobsDirectory = BlobStore.blobsDirectory(in: fixture.directory)
            let now = Date()
            let old = now.addingTimeInterval(-7200)
            let kept = try fixture.commit { try $0.store(blobRandomBytes(40_000, seed: 20)) }
            let inline = try fixture.commit { try $0.store(Array("inline body".utf8)) }

            func place(_ name: String, bytes: Int, modified: Date) throws {
                let url = blobsDirectory.appendingPathComponent(name)
                try Data(repeating: 7, count: bytes).write(to: url)
                try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: url.path)
            }
            let oldOrphan = SHA1.hash(Array("old orphan".utf8)).hex
            let freshOrphan = SHA1.hash(Array("fresh orphan".utf8)).hex
            try place(oldOrphan, bytes: 100, modified: old)
            try place(freshOrphan, bytes: 200, modified: now)
            try place(inline.key.hex, bytes: 300, modified: old)  // its row is inline: no file needed
            try place(".tmp-\(oldOrphan)-1234", bytes: 400, modified: old)
            try place(".tmp-\(freshOrphan)-5678", bytes: 500, modified: now)
            try place("notes.txt", bytes: 600, modified: old)
            try place(oldOrphan.uppercased(), bytes: 700, modified: old)
            try FileManager.default.createDirectory(
                at: blobsDirectory.appendingPathComponent(SHA1.hash(Array("dir".utf8)).hex),
                withIntermediateDirectories: false)
            let keptFile = fixture.fileURL(kept.key)
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: keptFile.path)

            let removed = try BlobStore.removeOrphans(
                directory: fixture.directory, connection: fixture.connection, olderThan: 600, now: now)
            #expect(removed.files == 3)
            #expect(removed.bytes == 100 + 300 + 400)
            let expected = [
                kept.key.hex, freshOrphan, ".tmp-\(freshOrphan)-5678", "notes.txt", oldOrphan.uppercased(),
                SHA1.hash(Array("dir".utf8)).hex,
            ]
            #expect(try fixture.blobFileNames() == expected.sorted())
            #expect(try fixture.read(kept.key.hex) != nil)

            // Nothing left to remove; and a store without blobs/ has nothing at all.
            let again = try BlobStore.removeOrphans(
                directory: fixture.directory, connection: fixture.connection, olderThan: 600, now: now)
            #expect(again.files == 0 && again.bytes == 0)
        }
        try await withTemporaryDirectory { directory in
            let connection = try Connection(path: ":memory:", mode: .readWrite(create: true))
            try connection.execute(Schema.version1)
            try connection.execute(Schema.version2)
            let removed = try BlobStore.removeOrphans(directory: directory, connection: connection, olderThan: 0)
            #expect(removed.files == 0)
        }
    }

    @Test func statisticsOfAnEmptyTable() async throws {
        try await withBlobStore { fixture in
            let statistics = try BlobStore.statistics(connection: fixture.connection)
            #expect(statistics.count == 0 && statistics.storedBytes == 0 && statistics.decompressedBytes == 0)
        }
    }
}

// MARK: - Fixture

/// A database with the version 2 schema in a temporary directory, and a blob store on it.
private struct BlobFixture {
    let directory: URL
    let connection: Connection
    let blobs: BlobStore
    let isInMemory: Bool

    /// Runs `body` in a transaction and, once it committed, tells the blob store.
    func commit<T>(_ body: (BlobStore) throws -> T) throws -> T {
        let value = try connection.transaction { try body(blobs) }
        let failures = blobs.didCommit()
        #expect(failures.isEmpty, "\(failures)")
        return value
    }

    private struct Abort: Error {}

    /// Runs `body` in a transaction that then rolls back, and tells the blob store.
    func rollBack(_ body: (BlobStore) throws -> Void) throws {
        do {
            try connection.transaction {
                try body(blobs)
                throw Abort()
            }
        } catch is Abort {
            let failures = blobs.didRollBack()
            #expect(failures.isEmpty, "\(failures)")
        }
    }

    func read(_ hex: String, maxSize: Int = 64 << 20) throws -> Data? {
        try BlobStore.data(
            forKey: hex, connection: connection, directory: isInMemory ? nil : directory, maxSize: maxSize)
    }

    func fileURL(_ key: SHA1.Digest) -> URL {
        BlobStore.fileURL(for: key, in: directory)
    }

    /// The names in `blobs/`, sorted (none when it does not exist).
    func blobFileNames() throws -> [String] {
        let url = BlobStore.blobsDirectory(in: directory)
        return Files.exists(url) ? try directoryListing(url) : []
    }

    func rowCount() throws -> Int64 {
        try connection.integer("SELECT count(*) FROM blobs") ?? 0
    }

    struct Row {
        var size: Int
        var decompressedSize: Int
        var compression: Int64
        var linkCount: Int64
        var isInline: Bool
    }

    func row(_ key: SHA1.Digest) throws -> Row? {
        let statement = try connection.prepare(
            "SELECT size, decompressed_size, compression, link_count, data IS NOT NULL FROM blobs WHERE key = ?")
        key.withUnsafeBytes { statement.bind($0, at: 1) }
        guard try statement.step() else { return nil }
        return Row(
            size: statement.int(at: 0), decompressedSize: statement.int(at: 1), compression: statement.int64(at: 2),
            linkCount: statement.int64(at: 3), isInline: statement.int64(at: 4) != 0)
    }

    func inlineData(_ key: SHA1.Digest) throws -> [UInt8]? {
        let statement = try connection.prepare("SELECT data FROM blobs WHERE key = ? AND data IS NOT NULL")
        key.withUnsafeBytes { statement.bind($0, at: 1) }
        return try statement.step() ? statement.bytes(at: 0) : nil
    }

    func setInlineData(_ data: [UInt8], for key: SHA1.Digest) throws {
        try connection.run("UPDATE blobs SET data = ? WHERE key = ?", [.blob(data), .blob(key.bytes)])
    }
}

private func withBlobStore<T>(
    settings: BlobStore.Settings = BlobStore.Settings(), inMemory: Bool = false,
    _ body: (BlobFixture) throws -> T
) async throws -> T {
    try await withTemporaryDirectory { directory in
        let path = inMemory ? ":memory:" : StoreFiles.databaseURL(in: directory).path
        let connection = try Connection(path: path, mode: .readWrite(create: true))
        try connection.execute(Schema.version1)
        try connection.execute(Schema.version2)
        let blobs = try BlobStore(connection: connection, directory: inMemory ? nil : directory, settings: settings)
        return try body(BlobFixture(directory: directory, connection: connection, blobs: blobs, isInMemory: inMemory))
    }
}

/// Expects reading `key` to fail as damaged storage, with the key in the reason.
private func expectDamage(
    _ fixture: BlobFixture, _ key: SHA1.Digest, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let error = #expect(throws: LogStoreError.self, sourceLocation: sourceLocation) { try fixture.read(key.hex) }
    guard let error, error.kind == .storeInvalid, let reason = error.reason else {
        Issue.record("expected storeInvalid, got \(String(describing: error))", sourceLocation: sourceLocation)
        return
    }
    #expect(reason.contains(key.hex), "\(reason)", sourceLocation: sourceLocation)
}

// MARK: - Bodies

/// Incompressible bytes.
private func blobRandomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededRandom(seed: seed &+ 0xB10B)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 8)
    while bytes.count < count {
        withUnsafeBytes(of: generator.next()) { bytes.append(contentsOf: $0) }
    }
    return Array(bytes.prefix(count))
}

/// A JSON-like API response of exactly `count` bytes, distinct per seed, compressing about 3–5×.
private func blobJSON(_ count: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededRandom(seed: seed)
    let names = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    var text = "{\"seed\":\(seed),\"items\":["
    var index = 0
    while text.utf8.count < count {
        let value = generator.next()
        text += "{\"id\":\(index),\"name\":\"\(names[Int(value % 8)])\",\"score\":\(value % 100_000),"
        text += "\"token\":\"\(String(value, radix: 36))\",\"active\":\(value % 3 == 0)},"
        index += 1
    }
    return Array(text.utf8.prefix(count))
}

/// The same short line over and over: compresses about 100×.
private func blobRepetitive(_ count: Int) -> [UInt8] {
    let line = Array("2024-05-01T12:00:00Z GET /health 200 ok\n".utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + line.count)
    while bytes.count < count { bytes += line }
    return Array(bytes.prefix(count))
}
