import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore open`: what it says of a missing archive, and that it says plainly when one checks out.
@Suite struct OpenArchiveHintsCLITests: CLITestCase {
    @Test func aMissingArchiveIsNotOfferedADemoStore() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("nope.lsarchive").path
            let run = await logstore("open", path)
            #expect(run.status == ExitStatus.notFound)
            #expect(run.error == "logstore: no archive at \(path): check the path, or write one with 'logstore export <store> -o \(path)'\n")
            // Any command given a missing *.lsarchive gets the same hint; a store's path keeps the demo's.
            let messages = await logstore("messages", path)
            #expect(messages.error.contains("no archive at \(path)") && !messages.error.contains("logstore demo"))
            let store = directory.appendingPathComponent("nope.logstore").path
            #expect(await logstore("info", store).error.contains("create a demo store with 'logstore demo \(store)'"))
            // `open` takes only archives, whatever the name.
            let other = directory.appendingPathComponent("nope.bin").path
            #expect(await logstore("open", other).error.contains("no archive at \(other)"))
        }
    }

    @Test func aSoundArchiveIsSaidToCheckOut() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            let archive = url.deletingLastPathComponent().appendingPathComponent("a.lsarchive")
            #expect(await logstore("export", url.path, "-o", archive.path).status == 0)
            let run = await logstore("open", archive.path)
            #expect(run.status == 0, "\(run.error)")
            #expect(run.lines.first == "The archive checked out: its structure, info record, every chunk's checksum and its database schema are sound.")
            #expect(run.output.contains("Messages:"))
            // The JSON stays the info record alone.
            #expect(try jsonObject(await logstore("open", archive.path, "--json").output)["messageCount"] as? Int == 30)
        }
    }
}
