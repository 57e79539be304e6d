import CSQLite
import Foundation
import Testing

@testable import LogStoreConsole

/// The console's file browser (`Sources/LogStoreConsole/Files/`) on real trees: hostile request
/// paths refused with the right reason, a secret beside the browsed folder never read, links
/// inside followed and links out refused (also when a name is swapped for one), listings,
/// previews of every kind, reads in chunks.
@Suite("Console files", .timeLimit(.minutes(TimeScale.minutes(1))))
struct ConsoleFilesTests {

    // MARK: Refusals

    /// A hostile request path and the error it must get.
    struct Hostile: Sendable, CustomTestStringConvertible {
        var path: String
        var error: FileAccessError
        var testDescription: String { path.count > 60 ? "\(path.prefix(40))… (\(path.utf8.count) bytes)" : path }

        init(_ path: String, _ error: FileAccessError) {
            self.path = path
            self.error = error
        }
    }

    static let hostilePaths: [Hostile] = [
        // `..`, plain and encoded.
        Hostile("..", .traversal),
        Hostile("../secret/secret.txt", .traversal),
        Hostile("sub/../../secret/secret.txt", .traversal),
        Hostile("sub/%2e%2e", .traversal),
        Hostile("%2e%2e/secret/secret.txt", .traversal),
        Hostile("%2E%2E/secret/secret.txt", .traversal),
        Hostile(".%2e/secret/secret.txt", .traversal),
        Hostile("%2e./secret/secret.txt", .traversal),
        Hostile("%2e%2e%2fsecret%2fsecret.txt", .traversal),
        Hostile("sub%2f..%2f..%2fsecret%2fsecret.txt", .traversal),
        // Decoded once: what a second decoding would turn into `..` is a name, and not there.
        Hostile("%252e%252e/secret/secret.txt", .notFound("%2e%2e/secret/secret.txt")),
        Hostile("%25252e%25252e/secret", .notFound("%252e%252e/secret")),
        Hostile("..;/secret/secret.txt", .notFound("..;/secret/secret.txt")),
        // Malformed escapes (IIS's %u, a double-nibble trick, cut short).
        Hostile("%", .malformedEscape),
        Hostile("hello.txt%2", .malformedEscape),
        Hostile("%zz", .malformedEscape),
        Hostile("%u002e%u002e/secret", .malformedEscape),
        Hostile("%%32%65%%32%65/secret", .malformedEscape),
        // `.` and empty segments.
        Hostile(".", .dotSegment),
        Hostile("%2e", .dotSegment),
        Hostile("./hello.txt", .dotSegment),
        Hostile("sub/./nested.txt", .dotSegment),
        Hostile("sub//nested.txt", .emptySegment),
        Hostile("sub/", .emptySegment),
        // Absolute.
        Hostile("/etc/passwd", .absolute),
        Hostile("//etc/passwd", .absolute),
        Hostile("%2fetc%2fpasswd", .absolute),
        Hostile("%2F..%2Fsecret", .absolute),
        // Backslashes.
        Hostile("..\\secret\\secret.txt", .backslash),
        Hostile("..%5csecret%5csecret.txt", .backslash),
        Hostile("sub%5C..%5C..%5Csecret", .backslash),
        // NUL and other control characters.
        Hostile("hello.txt%00.png", .controlCharacter(0)),
        Hostile("%2e%2e%00/secret", .controlCharacter(0)),
        Hostile("hello%0a.txt", .controlCharacter(0x0A)),
        Hostile("hello%0d%0aX-Injected:%201", .controlCharacter(0x0D)),
        Hostile("hello%09.txt", .controlCharacter(0x09)),
        Hostile("hello%7f", .controlCharacter(0x7F)),
        Hostile("a%c2%85b", .controlCharacter(0x85)),  // C1 NEL
        Hostile("txt.%e2%80%aeexe", .controlCharacter(0x202E)),  // right-to-left override
        Hostile("a%e2%80%a8b", .controlCharacter(0x2028)),  // line separator
        // Invalid and overlong UTF-8.
        Hostile("%c0%ae%c0%ae/secret/secret.txt", .invalidUTF8),
        Hostile("%e0%80%ae%e0%80%ae/secret/secret.txt", .invalidUTF8),
        Hostile("..%c0%afsecret", .invalidUTF8),
        Hostile("..%c1%9csecret", .invalidUTF8),
        Hostile("%f0%80%80%ae", .invalidUTF8),
        Hostile("%ed%a0%80", .invalidUTF8),  // a surrogate
        Hostile("%f4%90%80%80", .invalidUTF8),  // past U+10FFFF
        Hostile("%ff%fe", .invalidUTF8),
        Hostile("caf%c3", .invalidUTF8),  // cut short
        // Look-alikes of `.`, `/` and `\`.
        Hostile("%e2%80%a4%e2%80%a4/secret/secret.txt", .lookAlike(0x2024)),  // ONE DOT LEADER
        Hostile("%e2%80%a5/secret", .lookAlike(0x2025)),  // TWO DOT LEADER
        Hostile("%ef%bc%8e%ef%bc%8e/secret", .lookAlike(0xFF0E)),  // FULLWIDTH FULL STOP
        Hostile("%ef%b9%92%ef%b9%92/secret", .lookAlike(0xFE52)),  // SMALL FULL STOP
        Hostile("..%e2%88%95secret%e2%88%95secret.txt", .lookAlike(0x2215)),  // DIVISION SLASH
        Hostile("..%ef%bc%8fsecret", .lookAlike(0xFF0F)),  // FULLWIDTH SOLIDUS
        Hostile("..%e2%81%84secret", .lookAlike(0x2044)),  // FRACTION SLASH
        Hostile("..%ef%bc%bcsecret", .lookAlike(0xFF3C)),  // FULLWIDTH REVERSE SOLIDUS
        Hostile("..%e2%88%96secret", .lookAlike(0x2216)),  // SET MINUS
        Hostile("hello%e3%80%82txt", .lookAlike(0x3002)),  // IDEOGRAPHIC FULL STOP
        // Not NFC: `e` + COMBINING ACUTE ACCENT.
        Hostile("cafe%cc%81.txt", .notNormalized),
        // Too long.
        Hostile(String(repeating: "a", count: 256), .segmentTooLong(256)),
        Hostile(String(repeating: "%C3%A9", count: 128), .segmentTooLong(256)),
        Hostile(Array(repeating: String(repeating: "a", count: 200), count: 21).joined(separator: "/"), .pathTooLong(4220)),
        Hostile(String(repeating: "%61", count: 4097), .pathTooLong(12291)),
        // What the walk finds.
        Hostile("link-outside", .symlinkOutside("link-outside")),
        Hostile("abs-outside", .symlinkOutside("abs-outside")),
        Hostile("dir-outside/secret.txt", .symlinkOutside("dir-outside/secret.txt")),
        Hostile("sub/up-outside", .symlinkOutside("sub/up-outside")),
        Hostile("out-and-back", .symlinkOutside("out-and-back")),
        Hostile("loop-a", .symlinkLoop("loop-a")),
        Hostile("hello.txt/secret.txt", .notADirectory("hello.txt/secret.txt")),
        Hostile("dangling", .notFound("dangling")),
        Hostile("secret.txt", .notFound("secret.txt")),
        Hostile("fifo", .unsupportedKind("fifo")),
    ]

    @Test("hostile request paths are refused with their reason", arguments: hostilePaths)
    func refusesHostilePath(_ hostile: Hostile) throws {
        try withTree { tree throws in
            #expect(throws: hostile.error) { _ = try tree.browser.entry(at: hostile.path) }
        }
    }

    @Test("no call returns the secret's bytes")
    func secretNeverRead() throws {
        try withTree { tree throws in
            var seen: [UInt8] = []
            for hostile in Self.hostilePaths {
                seen += tree.everythingReadable(at: hostile.path)
            }
            // And everything the listings offer, followed to the bottom.
            var queue = [RequestPath.root]
            while let path = queue.popLast() {
                guard let opened = try? tree.browser.entry(at: path) else { continue }
                if opened.kind == .directory {
                    let listing = try tree.browser.listing(opened)
                    for entry in listing.entries {
                        seen += Array(entry.name.utf8)
                        if let child = entry.path, entry.isDirectoryLike, child.segments.count < 6 { queue.append(child) }
                        if let child = entry.path, !entry.isDirectoryLike { seen += tree.everythingReadable(at: child) }
                    }
                }
            }
            #expect(!seen.isEmpty)
            #expect(!seen.contains(subsequence: Tree.secret), "the secret was returned")
        }
    }

    @Test("the error categories the route maps to status codes")
    func categories() {
        #expect(FileAccessError.traversal.category == .badRequest)
        #expect(FileAccessError.invalidUTF8.category == .badRequest)
        #expect(FileAccessError.symlinkOutside("x").category == .forbidden)
        #expect(FileAccessError.permission("x").category == .forbidden)
        #expect(FileAccessError.notFound("x").category == .notFound)
        #expect(FileAccessError.notADirectory("x").category == .notFound)
        #expect(FileAccessError.system("x", operation: "pread", errno: EIO).category == .failed)
        #expect(FileAccessError.traversal.description.contains("`..`"))
        // The refused character is named, not echoed.
        #expect(FileAccessError.controlCharacter(0).description.contains("U+0000"))
        #expect(!FileAccessError.controlCharacter(0).description.contains("\0"))
    }

    @Test("the fuzz entry finds nothing on the hostile paths and on seeded random ones")
    func fuzzEntry() {
        var inputs = Self.hostilePaths.map(\.path) + [
            "", "in", "in-dir/n.txt", "sub/up", "sub/deeper/up2/n.txt", "abs-in", "out", "out-dir/secret.txt", "back-in",
            "%252e%252e", "sub/out2/secret.txt", "loop", "dangling",
        ]
        // Random paths from the pieces hostile paths are made of.
        let pieces = ["..", ".", "/", "%2e", "%2f", "%5c", "%00", "%25", "%c0%ae", "%e2%80%a4", "sub", "in-dir", "out-dir",
                      "up2", "deeper", "secret", "secret.txt", "a.txt", "out", "abs-out", "%", "é", "\\"]
        var random = SeededRandom(seed: 0xC0FFEE)
        for _ in 0..<2_000 {
            inputs.append((0..<Int.random(in: 1...8, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined())
        }
        for input in inputs {
            #expect(FuzzEntry.consolePath(Data(input.utf8)) == nil, "\(input.debugDescription)")
        }
    }

    // MARK: Races and links

    @Test("a file replaced by a link to the outside between listing and opening is refused")
    func swappedForLinkOut() throws {
        try withTree { tree throws in
            let listing = try tree.browser.listing(try tree.browser.entry(at: ""))
            let listed = try #require(listing.entries.first { $0.name == "hello.txt" })
            #expect(listed.kind == .file)
            try FileManager.default.removeItem(at: tree.root.appendingPathComponent("hello.txt"))
            try FileManager.default.createSymbolicLink(atPath: tree.root.appendingPathComponent("hello.txt").path, withDestinationPath: tree.secretFile.path)
            #expect(throws: FileAccessError.symlinkOutside("hello.txt")) { _ = try tree.browser.entry(at: try #require(listed.path)) }

            // A directory on the way swapped for a link to the secret's folder.
            try FileManager.default.removeItem(at: tree.root.appendingPathComponent("sub"))
            try FileManager.default.createSymbolicLink(atPath: tree.root.appendingPathComponent("sub").path, withDestinationPath: "../secret")
            #expect(throws: FileAccessError.symlinkOutside("sub/secret.txt")) { _ = try tree.browser.entry(at: "sub/secret.txt") }
        }
    }

    @Test("what is read is the file that was opened, whatever its name names later")
    func servesTheOpenedDescriptor() throws {
        try withTree { tree throws in
            let file = try tree.browser.entry(at: "hello.txt")
            try FileManager.default.removeItem(at: tree.root.appendingPathComponent("hello.txt"))
            try FileManager.default.createSymbolicLink(atPath: tree.root.appendingPathComponent("hello.txt").path, withDestinationPath: tree.secretFile.path)
            #expect(try file.readPrefix(100) == Array("hello\n".utf8))
        }
    }

    @Test("links that stay inside are followed", arguments: [
        ("link-inside", "sub/nested.txt"), ("abs-inside", "sub/nested.txt"), ("dir-link/nested.txt", "sub/nested.txt"),
        ("up-and-in", "hello.txt"), ("sub/link-up", "hello.txt"), ("chain", "sub/nested.txt"),
        ("dir-link/deeper/deep.txt", "sub/deeper/deep.txt"),
    ])
    func followsLinksInside(_ path: String, _ real: String) throws {
        try withTree { tree throws in
            let file = try tree.browser.entry(at: path)
            #expect(file.kind == .regularFile)
            #expect(file.path.path == path)
            #expect(file.realPath == real)
            let expected = try Data(contentsOf: tree.root.appendingPathComponent(real))
            #expect(try file.readPrefix(1000) == Array(expected))
        }
    }

    @Test("a link to a folder inside opens as that folder")
    func linkToDirectory() throws {
        try withTree { tree throws in
            let directory = try tree.browser.entry(at: "dir-link")
            #expect(directory.kind == .directory)
            #expect(directory.realPath == "sub")
            let names = try tree.browser.listing(directory).entries.map(\.name)
            #expect(names.contains("nested.txt"))
            // A listed link under a followed folder resolves from the link's real place.
            let up = try #require(try tree.browser.listing(directory).entries.first { $0.name == "link-up" })
            #expect(up.kind == .symlink(isDirectory: false))
            #expect(up.path == RequestPath(checkedSegments: ["dir-link", "link-up"]))
        }
    }

    @Test("a folder without permission gives the typed error", .enabled(if: getuid() != 0, "root ignores permissions"))
    func permissionDenied() throws {
        try withTree { tree throws in
            let locked = tree.root.appendingPathComponent("locked")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
            try Data("x".utf8).write(to: locked.appendingPathComponent("inside.txt"))
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: locked.path) }
            #expect(throws: FileAccessError.permission("locked/inside.txt")) { _ = try tree.browser.entry(at: "locked/inside.txt") }
            #expect(throws: FileAccessError.permission("locked")) { _ = try tree.browser.entry(at: "locked") }
        }
    }

    @Test("the folder to browse must be an existing directory")
    func unusableRoot() throws {
        try withTree { tree throws in
            let missing = tree.root.appendingPathComponent("missing")
            #expect(throws: FileAccessError.unusableRoot(missing.path, reason: "it does not exist")) {
                _ = try FileBrowser(root: missing)
            }
            let file = tree.root.appendingPathComponent("hello.txt")
            #expect(throws: FileAccessError.unusableRoot(file.path, reason: "it is not a directory")) {
                _ = try FileBrowser(root: file)
            }
            // A root given through a link is browsed at its real path.
            let linked = tree.base.appendingPathComponent("root-link")
            try FileManager.default.createSymbolicLink(atPath: linked.path, withDestinationPath: "root")
            let browser = try FileBrowser(root: linked)
            #expect(browser.rootPath == tree.browser.rootPath)
            #expect(try browser.entry(at: "abs-inside").realPath == "sub/nested.txt")
        }
    }

    // MARK: Names

    @Test("names with spaces and Unicode (NFC) are reachable, percent-encoded as the route will")
    func unicodeNames() throws {
        try withTree { tree throws in
            for (encoded, name) in [("a%20b.txt", "a b.txt"), ("caf%C3%A9.txt", "café.txt"), ("%E6%97%A5%E6%9C%AC.txt", "日本.txt"),
                                    ("100%25.txt", "100%.txt"), (".hidden", ".hidden"), ("emoji-%F0%9F%91%A8%E2%80%8D%F0%9F%91%A9", "emoji-👨‍👩")] {
                let file = try tree.browser.entry(at: encoded)
                #expect(file.path.segments == [name])
                #expect(try file.readPrefix(100) == Array(name.utf8))
            }
            // Every listed reachable name encodes back (as PercentDecoding.encode does) to itself.
            for entry in try tree.browser.listing(tree.browser.entry(at: "")).entries {
                guard let path = entry.path, entry.kind != .other else { continue }
                let encoded = path.segments.map(PercentDecoding.encode).joined(separator: "/")
                #expect(try tree.browser.entry(at: encoded).path == path, "\(entry.name)")
            }
        }
    }

    // MARK: Listing

    @Test("a listing: kinds, sizes, directories first then by name, unreachable names said so")
    func listing() throws {
        try withTree { tree throws in
            let listing = try tree.browser.listing(try tree.browser.entry(at: ""))
            let byName = Dictionary(listing.entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            #expect(listing.omitted == 0)
            #expect(byName["hello.txt"]?.kind == .file)
            #expect(byName["hello.txt"]?.size == 6)
            #expect(byName["hello.txt"]?.path == RequestPath(checkedSegments: ["hello.txt"]))
            #expect(byName["sub"]?.kind == .directory)
            #expect(byName[".hidden"]?.kind == .file)
            #expect(byName["link-inside"]?.kind == .symlink(isDirectory: false))
            #expect(byName["link-inside"]?.size == Int64("nested\n".utf8.count))
            #expect(byName["dir-link"]?.kind == .symlink(isDirectory: true))
            #expect(byName["link-outside"]?.kind == .unreachable(.symlinkOutside("link-outside")))
            #expect(byName["link-outside"]?.path == nil)
            #expect(byName["abs-outside"]?.kind == .unreachable(.symlinkOutside("abs-outside")))
            #expect(byName["dangling"]?.kind == .unreachable(.notFound("dangling")))
            #expect(byName["loop-a"]?.kind == .unreachable(.symlinkLoop("loop-a")))
            #expect(byName["fifo"]?.kind == .other)
            #expect(byName["cafe\u{301}-nfd.txt"]?.kind == .unreachable(.notNormalized))
            #expect(byName["tab\there"]?.kind == .unreachable(.controlCharacter(9)))
            #expect(byName["bad-\u{FFFD}-utf8"]?.kind == .unreachable(.invalidUTF8))

            let directoriesFirst = listing.entries.map(\.isDirectoryLike)
            #expect(directoriesFirst == directoriesFirst.sorted { $0 && !$1 })
            for group in [listing.entries.filter(\.isDirectoryLike), listing.entries.filter { !$0.isDirectoryLike }] {
                let names = group.map { $0.name.lowercased() }
                #expect(names == names.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) })
            }

            let limited = try tree.browser.listing(try tree.browser.entry(at: ""), limit: 3)
            #expect(limited.entries.count == 3)
            #expect(limited.omitted == listing.entries.count - 3)

            #expect(throws: FileAccessError.wrongKind("hello.txt", expected: "a folder")) {
                _ = try tree.browser.listing(try tree.browser.entry(at: "hello.txt"))
            }
        }
    }

    // MARK: Previews

    @Test("JSON is pretty-printed with sorted keys")
    func jsonPreview() throws {
        try withTree { tree throws in
            let preview = try tree.browser.preview(try tree.browser.entry(at: "data.json"))
            #expect(preview == .json("{\n  \"a\" : [\n    1,\n    2\n  ],\n  \"b\" : \"x/y\"\n}"))
            // Not valid JSON, though it starts like it: text.
            #expect(try tree.browser.preview(try tree.browser.entry(at: "broken.json")) == .text("{\"a\": ", truncated: false))
            // Nested past what the parser accepts: text, not a crash.
            let deep = try tree.browser.preview(try tree.browser.entry(at: "deep.json"))
            #expect(deep == .text(String(repeating: "[", count: 100_000), truncated: false))
        }
    }

    @Test("text is cut at the limit, never in the middle of a character")
    func textPreview() throws {
        try withTree { tree throws in
            #expect(try tree.browser.preview(try tree.browser.entry(at: "hello.txt")) == .text("hello\n", truncated: false))
            #expect(try tree.browser.preview(try tree.browser.entry(at: "empty.txt")) == .text("", truncated: false))
            let big = try tree.browser.preview(try tree.browser.entry(at: "big.log"))
            guard case .text(let text, truncated: true) = big else {
                Issue.record("expected truncated text, got \(big)")
                return
            }
            #expect(text.utf8.count == FileBrowser.defaultPreviewLimit)
            #expect(text.hasPrefix("line 0\n"))
            // "é" is 2 bytes; a limit of 3 cuts the second one in half: it is dropped.
            let cut = try tree.browser.preview(try tree.browser.entry(at: "accents.txt"), byteLimit: 3)
            #expect(cut == .text("é", truncated: true))
            #expect(try tree.browser.preview(try tree.browser.entry(at: "accents.txt"), byteLimit: 4) == .text("éé", truncated: false))
        }
    }

    @Test("bytes with NULs or invalid UTF-8 are binary")
    func binaryPreview() throws {
        try withTree { tree throws in
            #expect(try tree.browser.preview(try tree.browser.entry(at: "blob.bin")) == .binary(size: 1000))
            #expect(try tree.browser.preview(try tree.browser.entry(at: "latin1.txt")) == .binary(size: 4))
        }
    }

    @Test("an image's format and pixel size")
    func imagePreview() throws {
        try withTree { tree throws in
            #expect(try tree.browser.preview(try tree.browser.entry(at: "image.png")) == .image(format: "png", width: 259, height: 3))
            #expect(try tree.browser.preview(try tree.browser.entry(at: "image.gif")) == .image(format: "gif", width: 261, height: 5))
            #expect(ImageHeader.read(Tree.jpeg) == ImageHeader(format: "jpeg", width: 263, height: 7))
            #expect(ImageHeader.read(Tree.webpLossless) == ImageHeader(format: "webp", width: 8, height: 6))
            #expect(ImageHeader.read(Array(Tree.png.prefix(20))) == nil)
        }
    }

    @Test("an SQLite file's tables and row counts, its WAL included, while another connection writes")
    func sqlitePreview() throws {
        try withTree { tree throws in
            let writer = try SQLiteFixture(tree.root.appendingPathComponent("live.sqlite").path, wal: true)
            defer { writer.close() }
            try writer.exec("CREATE TABLE users(name TEXT); CREATE TABLE \"odd \"\"name\"(x); CREATE TABLE empty(x)")
            try writer.exec("INSERT INTO users VALUES ('ann'), ('bob'), ('cy')")
            try writer.exec("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1234) INSERT INTO \"odd \"\"name\" SELECT i FROM c")
            // Still open, its WAL not checkpointed: the rows are only in the -wal file.
            let preview = try tree.browser.preview(try tree.browser.entry(at: "live.sqlite"))
            #expect(preview == .sqlite(tables: [
                SQLiteTableSummary(name: "empty", rows: 0),
                SQLiteTableSummary(name: "odd \"name", rows: 1234),
                SQLiteTableSummary(name: "users", rows: 3),
            ], error: nil))
            // Read-only: the file the writer holds is unchanged by the preview.
            try writer.exec("INSERT INTO users VALUES ('dee')")
        }
    }

    @Test("a row count over the time budget is given up, not waited for")
    func sqliteCountBudget() throws {
        try withTree { tree throws in
            let file = try tree.browser.entry(at: "store.sqlite")
            let summary = tree.browser.sqliteSummary(file, limits: SQLiteFileSummary.Limits(budget: .zero, instructionsPerCheck: 100))
            #expect(summary.tables.map(\.name) == ["events", "users"])
            #expect(summary.tables.first { $0.name == "events" }?.rows == nil)
            #expect(summary.error?.contains("too large to count") == true)
            let full = tree.browser.sqliteSummary(file)
            #expect(full.tables == [SQLiteTableSummary(name: "events", rows: 20_000), SQLiteTableSummary(name: "users", rows: 3)])
            #expect(full.error == nil)
        }
    }

    @Test("a file that only starts like a database shows SQLite's error")
    func notReallySQLite() throws {
        try withTree { tree throws in
            let preview = try tree.browser.preview(try tree.browser.entry(at: "fake.sqlite"))
            guard case .sqlite(let tables, let error?) = preview else {
                Issue.record("expected an SQLite error, got \(preview)")
                return
            }
            #expect(tables.isEmpty)
            #expect(error.contains("not a database") || error.contains("malformed"))
        }
    }

    @Test("a directory has no preview")
    func directoryPreview() throws {
        try withTree { tree throws in
            #expect(throws: FileAccessError.wrongKind("sub", expected: "a file")) {
                _ = try tree.browser.preview(try tree.browser.entry(at: "sub"))
            }
        }
    }

    // MARK: Reading

    @Test("a file read in chunks at offsets, as a Range response does")
    func chunkedRead() throws {
        try withTree { tree throws in
            let file = try tree.browser.entry(at: "blob.bin")
            #expect(file.size == 1000)
            let expected = Array(try Data(contentsOf: tree.root.appendingPathComponent("blob.bin")))
            var collected: [UInt8] = []
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
            defer { chunk.deallocate() }
            var offset: Int64 = 100  // bytes=100-
            while true {
                let count = try file.read(into: chunk, at: offset)
                if count == 0 { break }
                collected += chunk[..<count]
                offset += Int64(count)
            }
            #expect(collected == Array(expected[100...]))
            file.close()
            #expect(throws: FileAccessError.closed("blob.bin")) { _ = try file.read(into: chunk, at: 0) }
            #expect(throws: FileAccessError.wrongKind("sub", expected: "a file")) {
                _ = try tree.browser.entry(at: "sub").read(into: chunk, at: 0)
            }
        }
    }

    // MARK: The tree

    /// A temporary folder holding `root/` (browsed) and `secret/secret.txt` beside it.
    struct Tree {
        static let secret = Array("TOP-SECRET-3f9c2a".utf8)
        let base: URL
        let root: URL
        let secretFile: URL
        let browser: FileBrowser

        /// Every byte a caller could get for `path` (entry, listing, preview, read), or none.
        func everythingReadable(at path: String) -> [UInt8] {
            guard let opened = try? browser.entry(at: path) else { return [] }
            return everythingReadable(opened)
        }

        func everythingReadable(at path: RequestPath) -> [UInt8] {
            guard let opened = try? browser.entry(at: path) else { return [] }
            return everythingReadable(opened)
        }

        private func everythingReadable(_ opened: OpenedFile) -> [UInt8] {
            guard opened.kind == .regularFile else { return [] }
            var bytes = (try? opened.readPrefix(1 << 20)) ?? []
            if let preview = try? browser.preview(opened) { bytes += Array(String(describing: preview).utf8) }
            return bytes
        }

        static let png = base64("""
            iVBORw0KGgoAAAANSUhEUgAAAQMAAAADCAIAAAAYxP0oAAAALUlEQVR42mNk+M/A/nMUjaKRjhh5PzGw/2QcRaNohCNGqacM7D+Z
            RtEoGuEIAJYaDDRym+dxAAAAAElFTkSuQmCC
            """)
        static let gif = base64("""
            R0lGODdhBQEFAIEAAN/f352dnVxcXB4eHiwAAAAABQEFAAAIywAHCBw4UIDBgwcDKFzIEIDDhw8JSkRIkaFFiBgBSCxIMaHFhhkd
            buTYUcDHhSEjjizp8WRKjSMHsDR5MsBLmCtZ1rSZMibBmTt5hvQJtObNmDNpuuyJVKfRl0SdLh3atGRQqFU77jzqU2bRqRmjWn3K
            NOdYsBjFat1aduPXj1zdSkULUW1FslS7vr3YduJcuH1//gUZWOBevnnlngVc2OtglI0dr6VbF6nhxwrj+l3MOGzWu5RVKuZM2LPZ
            yZ1NjwaduvJp1q1FKw4IADs=
            """)
        /// The start of a baseline JPEG: SOI, an APP0 (JFIF), a DQT, then SOF0 for 263×7.
        static let jpeg: [UInt8] =
            [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
            + [0xFF, 0xFF, 0xDB, 0x00, 0x04, 0x00, 0x01]  // a fill byte, then a short DQT
            + [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x07, 0x01, 0x07, 0x03]
        /// A lossless WebP's header, 8×6: width − 1 = 7 and height − 1 = 5 packed in 14 bits each.
        static let webpLossless: [UInt8] =
            Array("RIFF".utf8) + [0x1A, 0, 0, 0] + Array("WEBPVP8L".utf8) + [0x0E, 0, 0, 0, 0x2F, 0x07, 0x40, 0x01, 0x00]

        private static func base64(_ text: String) -> [UInt8] {
            Data(base64Encoded: text, options: .ignoreUnknownCharacters).map { Array($0) } ?? []
        }
    }

    /// Builds the tree in a fresh temporary folder and runs `body` on it.
    func withTree(_ body: (Tree) throws -> Void) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("logstore-console-files-\(UUID().uuidString)")
        let root = base.appendingPathComponent("root")
        let secretDirectory = base.appendingPathComponent("secret")
        let fm = FileManager.default
        defer {
            _ = try? fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root.appendingPathComponent("locked").path)
            try? fm.removeItem(at: base)
        }
        try fm.createDirectory(at: root.appendingPathComponent("sub/deeper"), withIntermediateDirectories: true)
        try fm.createDirectory(at: secretDirectory, withIntermediateDirectories: true)
        let secretFile = secretDirectory.appendingPathComponent("secret.txt")
        try Data(Tree.secret).write(to: secretFile)

        func write(_ name: String, _ bytes: [UInt8]) throws { try Data(bytes).write(to: root.appendingPathComponent(name)) }
        func write(_ name: String, _ text: String) throws { try write(name, Array(text.utf8)) }
        func link(_ name: String, _ target: String) throws {
            try fm.createSymbolicLink(atPath: root.appendingPathComponent(name).path, withDestinationPath: target)
        }
        try write("hello.txt", "hello\n")
        try write("empty.txt", "")
        try write(".hidden", ".hidden")
        try write("a b.txt", "a b.txt")
        try write("café.txt", "café.txt")
        try write("日本.txt", "日本.txt")
        try write("100%.txt", "100%.txt")
        try write("emoji-👨‍👩", "emoji-👨‍👩")
        try write("sub/nested.txt", "nested\n")
        try write("sub/deeper/deep.txt", "deep\n")
        try write("data.json", "{\"b\": \"x/y\", \"a\": [1, 2]}")
        try write("broken.json", "{\"a\": ")
        try write("deep.json", String(repeating: "[", count: 100_000))
        try write("accents.txt", "éé")
        try write("latin1.txt", [0x63, 0x61, 0x66, 0xE9])
        try write("big.log", (0..<40_000).map { "line \($0)\n" }.joined())
        try write("blob.bin", (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        try write("image.png", Tree.png)
        try write("image.gif", Tree.gif)
        try write("fake.sqlite", SQLiteFileSummary.magic + [UInt8](repeating: 0xAB, count: 200))
        // A name that is not NFC, one with a control character, one that is not UTF-8.
        try write("cafe\u{301}-nfd.txt", "nfd")
        try write("tab\there", "tab")
        // Through open(2) with the raw bytes: a Swift String cannot hold the 0xFF.
        let badName = Array((root.path + "/bad-").utf8) + [0xFF] + Array("-utf8".utf8) + [0]
        let descriptor = badName.withUnsafeBufferPointer { bytes -> Int32 in
            guard let base = bytes.baseAddress else { return -1 }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { open($0, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600) }
        }
        #expect(descriptor >= 0)
        close(descriptor)
        #expect(mkfifo(root.appendingPathComponent("fifo").path, 0o600) == 0)

        let store = try SQLiteFixture(root.appendingPathComponent("store.sqlite").path, wal: false)
        try store.exec("CREATE TABLE users(name TEXT); INSERT INTO users VALUES ('ann'), ('bob'), ('cy')")
        try store.exec("CREATE TABLE events(x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000) INSERT INTO events SELECT i FROM c")
        store.close()

        try link("link-inside", "sub/nested.txt")
        try link("abs-inside", root.resolvingSymlinksInPath().appendingPathComponent("sub/nested.txt").path)
        try link("dir-link", "sub")
        try link("up-and-in", "sub/../hello.txt")
        try link("sub/link-up", "../hello.txt")
        try link("chain", "link-inside")
        try link("link-outside", "../secret/secret.txt")
        try link("abs-outside", secretFile.resolvingSymlinksInPath().path)
        try link("dir-outside", "../secret")
        try link("sub/up-outside", "../../secret/secret.txt")
        try link("out-and-back", "../root/hello.txt")
        try link("loop-a", "loop-b")
        try link("loop-b", "loop-a")
        try link("dangling", "nowhere")

        try body(Tree(base: base, root: root, secretFile: secretFile, browser: try FileBrowser(root: root)))
    }
}

/// A database written through CSQLite for the previews to read.
final class SQLiteFixture {
    private var db: OpaquePointer?

    init(_ path: String, wal: Bool) throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            throw SQLiteFixtureError(message: "open \(path)")
        }
        if wal { try exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0") }
    }

    /// Runs `sql` (one or more statements).
    func exec(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &error) != SQLITE_OK else { return }
        let message = error.map { String(cString: $0) } ?? "?"
        sqlite3_free(error)
        throw SQLiteFixtureError(message: message)
    }

    func close() {
        sqlite3_close_v2(db)
        db = nil
    }
}

struct SQLiteFixtureError: Error {
    var message: String
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in it.
    fileprivate func contains(subsequence needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, count >= needle.count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<$0 + needle.count]) == needle }
    }
}
