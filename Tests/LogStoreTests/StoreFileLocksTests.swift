import Foundation
import Glibc
import LogStore
import Testing

/// SQLite's locks on a store's files are POSIX advisory locks, which belong to the process: a
/// `close()` of *any* descriptor of the database file drops every lock the process holds on it
/// (sqlite.org/howtocorrupt.html, 2.2). Another process may then take the exclusive lock it
/// should never get while this one has the store open, checkpoint, and delete the WAL and the
/// shared memory under it: the store is corrupted. These tests open the store in ways that used
/// to open and close its files outside SQLite while SQLite held locks, then have a real second
/// process open and close the store, and check that this process still holds no deleted file.
@Suite("Store files and the process's locks")
struct StoreFileLocksTests {
    /// A child that opens the store, logs nothing, and closes it: its close checkpoints and
    /// deletes the WAL if it gets the exclusive lock, which it must not while we hold the store.
    static func openAndCloseInAnotherProcess(_ url: URL) async throws {
        let child = try await SpawnedProcess.run(testHelperExecutable, ["writers", url.path, "0", "child"], seconds: 30)
        #expect(child.status == 0 && !child.timedOut, "\(child.output)")
    }

    @Test func aSecondInstanceOnTheDirectoryKeepsTheFirstOnesLocks() async throws {
        try await withTemporaryStoreURL { url in
            let first = try await LogStore(storeURL: url, options: [.create])
            for index in 0..<100 { first.storeMessage(label: "first", level: .info, message: "first \(index)") }
            try await first.flush()
            // Another instance on the same directory, in the same process: it opens the database
            // again, its own writer beside the first.
            let second = try await LogStore(storeURL: url, options: [.create])
            for index in 0..<100 { second.storeMessage(label: "second", level: .info, message: "second \(index)") }
            try await second.flush()

            try await Self.openAndCloseInAnotherProcess(url)
            #expect(deletedStoreFilesHeld(under: url).isEmpty, "\(deletedStoreFilesHeld(under: url))")

            for index in 100..<200 { first.storeMessage(label: "first", level: .info, message: "first \(index)") }
            try await first.flush()
            try await second.close()
            try await first.close()
            try await withStore(at: url, options: [.readonly]) { store in
                #expect(try await store.count(MessageQuery()) == 300)
                let check = try await store.read { db in try db.scalar("PRAGMA integrity_check")?.text }
                #expect(check == "ok")
            }
        }
    }

    @Test func reopeningRightAfterCloseKeepsEveryLock() async throws {
        try await withTemporaryStoreURL { url in
            // A reader instance stays open throughout while writer instances come and go.
            try await withStore(at: url) { _ in }
            let reader = try await LogStore(storeURL: url, options: [.readonly])
            for round in 0..<5 {
                let store = try await LogStore(storeURL: url, options: [.create])
                for index in 0..<50 { store.storeMessage(label: "round", level: .info, message: "\(round) \(index)") }
                try await store.flush()
                _ = try await reader.count(MessageQuery())
                try await Self.openAndCloseInAnotherProcess(url)
                #expect(deletedStoreFilesHeld(under: url).isEmpty, "round \(round): \(deletedStoreFilesHeld(under: url))")
                try await store.close()
            }
            #expect(try await reader.count(MessageQuery()) == 250)
            try await reader.close()
        }
    }

    @Test func closeLeavesNoDescriptorOfTheStoreOpen() async throws {
        try await withTemporaryStoreURL { url in
            for round in 0..<10 {
                try await withStore(at: url) { store in
                    for index in 0..<2_000 {
                        store.storeMessage(label: "round", level: .info, message: "\(round) \(index)")
                        if index % 200 == 0 {
                            // Bodies large enough for files of their own, each distinct.
                            let body = Data("body \(round) \(index) ".utf8) + Data(repeating: UInt8(index % 251), count: 80_000)
                            let address = URL(string: "https://example.com/\(round)/\(index)")!
                            store.storeRequest(
                                NetworkRequest(url: address), response: NetworkResponse(url: address, statusCode: 200),
                                error: nil, data: body)
                        }
                    }
                    _ = try await store.count(MessageQuery())
                }
                let held = openDescriptorTargets().filter { $0.hasPrefix(url.path) }
                #expect(held.isEmpty, "round \(round): \(held)")
            }
        }
    }

    @Test func theDatabaseOfAnOpenStoreIsNotOpenedAsAnArchive() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                store.storeMessage(label: "app", level: .info, message: "kept")
                try await store.flush()
                let database = url.appendingPathComponent("logs.sqlite")
                await #expect(throws: LogStoreError.self) { _ = try await LogStore(archiveURL: database) }
                try await Self.openAndCloseInAnotherProcess(url)
                #expect(deletedStoreFilesHeld(under: url).isEmpty, "\(deletedStoreFilesHeld(under: url))")
                store.storeMessage(label: "app", level: .info, message: "after")
                try await store.flush()
                #expect(try await store.count(MessageQuery()) == 2)
            }
        }
    }
}

/// The rule that keeps SQLite's locks, checked on the sources: the library opens files outside
/// SQLite only through `Files.openDescriptor`, which refuses a database this process's
/// connections hold. A new `open(2)` anywhere else (or a Foundation call that opens a file by
/// path) fails this test instead of silently dropping a lock one day.
@Suite("Where the library opens files")
struct FileOpeningRuleTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/LogStore")

    @Test func filesAreOpenedOnlyThroughTheGuardedCall() throws {
        let enumerator = try #require(FileManager.default.enumerator(atPath: Self.sources.path))
        // libc's open(2) always takes O_ flags (the library's own `open(` functions do not), on
        // one line or several; and Foundation's ways of opening a file by path.
        let forbidden = try Regex(
            #"(^|[^\w])(open|openat|creat)\([^)]*O_[A-Z]|fopen\(|FileHandle\(|Data\(contentsOf|String\(contentsOf|contentsOfFile|contents\(atPath|createFile\(atPath|copyItem\(|\.write\(to: *[^&\s]"#)
        var offenders: [String] = []
        var scanned = 0
        for case let path as String in enumerator where path.hasSuffix(".swift") && path != "System/Files.swift" {
            scanned += 1
            let text = try String(contentsOf: Self.sources.appendingPathComponent(path), encoding: .utf8)
            let code = text.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                .joined(separator: "\n")
            for match in code.matches(of: forbidden) {
                offenders.append("\(path): \(code[match.range].prefix(120))")
            }
        }
        #expect(scanned > 100)
        #expect(offenders.isEmpty, "open files through Files.openDescriptor:\n\(offenders.joined(separator: "\n"))")
    }
}
