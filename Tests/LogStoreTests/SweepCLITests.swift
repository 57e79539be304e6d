import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore sweep`: what it removes, its report, and the ages and sizes it reads.
@Suite struct SweepCLITests: CLITestCase {
    @Test func sweepWithNoAgeLeftRemovesEverything() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url)
            let run = await logstore("sweep", url.path, "--max-age", "0s", now: CLIFixtures.afterTheDemo)
            #expect(run.status == 0, "\(run.error)")
            #expect(run.lines.first == "Swept \(url.path)")
            let removed = try #require(run.lines.first { $0.hasPrefix("Removed:") })
            #expect(removed.contains(" 300 messages, 60 tasks, 0 bodies dropped, "))
            #expect(removed.hasSuffix(" blobs, 0 orphan files"))
            #expect(run.lines.contains { $0.hasPrefix("Size:") && $0.contains(" → ") && $0.hasSuffix(" reclaimed)") })
            #expect(run.lines.contains { $0.hasPrefix("Limits:") && $0.hasSuffix("older than 0s, size 256 MB (trimmed from 85%)") })

            let info = try jsonObject(await logstore("info", url.path, "--json").output)
            #expect(info["messageCount"] as? Int == 0)
            #expect(info["taskCount"] as? Int == 0)
            #expect(info["blobCount"] as? Int == 0)
        }
    }

    @Test func sweepJSONIsOneObjectWithTheReportsKeys() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url)
            // The demo spans the 3 hours before `now`: an hour's age keeps about a third.
            let run = await logstore("sweep", url.path, "--max-age", "1h", "--size-limit", "64MB", "--json")
            #expect(run.status == 0, "\(run.error)")
            #expect(run.lines.count == 1)
            let report = try jsonObject(run.output)
            #expect(Set(report.keys) == [
                "date", "trigger", "duration", "removedMessages", "removedTasks", "droppedBodies", "removedBlobs",
                "removedOrphanFiles", "sizeBefore", "sizeAfter", "guardedMessages", "guardedTasks", "retentionGuardAuthors",
                "reclaimedBytes",
            ])
            #expect(report["trigger"] as? String == "manual")
            #expect(report["date"] as? String == Format.timestamp(CLIFixtures.now))
            let removed = try #require(report["removedMessages"] as? Int)
            #expect((1..<300).contains(removed))
            let before = try #require(report["sizeBefore"] as? Int)
            let after = try #require(report["sizeAfter"] as? Int)
            #expect(report["reclaimedBytes"] as? Int == max(0, before - after))

            let info = try jsonObject(await logstore("info", url.path, "--json").output)
            #expect(info["messageCount"] as? Int == 300 - removed)
        }
    }

    @Test func sweepOverTheSizeLimitTrimsAndSaysWhenStillOver() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url)
            let size = try #require(try jsonObject(await logstore("info", url.path, "--json").output)["totalStoreSize"] as? Int)
            // Just over the limit: one trim of about 30 % of the messages, and nothing more to say.
            let run = await logstore("sweep", url.path, "--size-limit", String(size * 8 / 10), "--json")
            #expect(run.status == 0, "\(run.error)")
            let report = try jsonObject(run.output)
            let removed = try #require(report["removedMessages"] as? Int)
            #expect((60..<150).contains(removed), "\(removed)")

            // Far below what an empty store takes: everything goes, and the tool says it is still over.
            let again = await logstore("sweep", url.path, "--size-limit", "1KiB")
            #expect(again.status == 0, "\(again.error)")
            #expect(again.lines.last?.hasPrefix("Still above the size limit: ") == true)
        }
    }

    @Test func sweepRejectsBadLimitsBeforeOpeningTheStore() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url)
            for (option, value) in [("size-limit", "12 parsecs"), ("size-limit", "-5MB"), ("size-limit", "1e9"), ("max-age", "soon")] {
                let run = await logstore("sweep", url.path, "--\(option)", value)
                #expect(run.status == 64, "\(value)")
                #expect(run.error.hasPrefix("logstore: invalid value '\(value)' for --\(option): expected "), "\(run.error)")
                #expect(run.output.isEmpty)
            }
            // Nothing ran: the store records no sweep.
            let info = try jsonObject(await logstore("info", url.path, "--json").output)
            #expect(info["lastSweep"] == nil)
            #expect(info["lastSweepDate"] == nil)
        }
    }

    @Test func agesParseWithUnitsOrAsSeconds() throws {
        func age(_ text: String) throws -> Duration { try ValueParsers.age(text, option: "max-age") }
        #expect(try age("30s") == .seconds(30))
        #expect(try age("15m") == .seconds(900))
        #expect(try age("12h") == .seconds(43_200))
        #expect(try age("14d") == .seconds(14 * 86_400))
        #expect(try age("1.5h") == .seconds(5400))
        #expect(try age("90") == .seconds(90))
        #expect(try age("0s") == .zero)
        for bad in ["", "s", "-1s", "1y", "soon", "1e3", "1 d", "36501d", String(repeating: "9", count: 400) + "d"] {
            #expect(throws: UsageError.self, "\(bad)") { try age(bad) }
        }
        #expect(SweepFormat.age(.seconds(14 * 86_400)) == "14d")
        #expect(SweepFormat.age(.seconds(5400)) == "90m")
        #expect(SweepFormat.age(.seconds(61)) == "61s")
        #expect(SweepFormat.age(.zero) == "0s")
    }

    @Test func sizesParseInDecimalAndBinaryUnits() throws {
        func size(_ text: String) throws -> Int64 { try ValueParsers.byteSize(text, option: "size-limit") }
        #expect(try size("500000") == 500_000)
        #expect(try size("500_000") == 500_000)
        #expect(try size("64MB") == 64_000_000)
        #expect(try size("64mb") == 64_000_000)
        #expect(try size("1.5GB") == 1_500_000_000)
        #expect(try size("512KiB") == 524_288)
        #expect(try size("2 GiB") == 2_147_483_648)
        #expect(try size("1TB") == 1_000_000_000_000)
        #expect(try size("100B") == 100)
        #expect(try size("0") == 0)
        #expect(try size("9223372036854775807") == Int64.max)
        for bad in ["", "MB", "-5", "5 parsecs", "1e9", "12M", "10EB", "8EiB", "99999999999999999999", "1..5GB"] {
            #expect(throws: UsageError.self, "\(bad)") { try size(bad) }
        }
    }
}
