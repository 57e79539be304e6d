import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `tail`'s label column: one width from the first line on (the store's longest label, at most
/// 16 columns, longer ones cut), so lines printed before a long label arrives stay aligned.
@Suite struct TailLabelColumnCLITests: CLITestCase {
    @Test func theColumnIsFixedBeforeTheFirstLine() async throws {
        try await withTemporaryStoreURL { url in
            let labels = ["db", "db", "cache", "payments", "db", "a-very-long-label-indeed"]
            try await withStore(at: url) { store in
                for (index, label) in labels.enumerated() {
                    store.storeMessage(
                        createdAt: CLIFixtures.now.addingTimeInterval(Double(index - 10)), label: label, level: .info,
                        message: "text \(index)")
                }
                try await store.flush()
            }
            let archive = url.deletingLastPathComponent().appendingPathComponent("a.lsarchive")
            try await withStore(at: url, options: [.readonly]) { _ = try await $0.export(to: archive) }

            let run = await logstore("tail", archive.path, "-n", "10")
            #expect(run.status == 0, "\(run.error)")
            #expect(run.lines.count == labels.count)
            let columns = try run.lines.map { line in
                try #require(line.range(of: "text ")).lowerBound.utf16Offset(in: line)
            }
            #expect(Set(columns).count == 1, "\(run.lines)")
            // 16 columns: the longest label is cut, with an ellipsis.
            #expect(run.lines.last?.contains(" a-very-long-lab… text 5") == true, "\(run.lines)")
            #expect(run.lines.first?.contains(" db" + String(repeating: " ", count: 15) + "text 0") == true, "\(run.lines)")

            // With --label, the widest of those named.
            let named = await logstore("tail", archive.path, "--label", "db", "--label", "cache")
            #expect(named.lines.first?.contains(" db    text 0") == true, "\(named.lines)")
        }
    }
}
