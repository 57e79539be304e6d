import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `summary`'s busiest labels: counts and percentages right-aligned, so the decimal points line up.
@Suite struct SummaryLabelSharesCLITests: CLITestCase {
    @Test func sharesAreRightAligned() async throws {
        try await withTemporaryStoreURL { url in
            // 95 % http, 4 % db, 1 % auth (100 messages).
            try await withStore(at: url) { store in
                for index in 0..<100 {
                    let label = index < 95 ? "http" : index < 99 ? "db" : "auth"
                    store.storeMessage(
                        createdAt: CLIFixtures.now.addingTimeInterval(Double(index - 100)), label: label, level: .info,
                        message: "m \(index)")
                }
                try await store.flush()
            }
            let run = await logstore("summary", url.path)
            #expect(run.status == 0, "\(run.error)")
            let start = try #require(run.lines.firstIndex { $0.hasPrefix("Busiest labels") })
            let rows = Array(run.lines[(start + 1)...(start + 3)])
            #expect(rows == [
                "  http   95  95.0 %",
                "  db      4   4.0 %",
                "  auth    1   1.0 %",
            ], "\(rows)")
        }
    }
}
