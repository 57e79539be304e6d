import Foundation
import Testing
@testable import LogStoreCLI

/// A time window that holds no time (`--since 1h --until 2h`) is refused as such, by every
/// command with a window, rather than answered "No messages match.".
@Suite struct TimeRangeCLITests: CLITestCase {
    static let expected = "logstore: empty time range: --since 1h is not before --until 2h "
        + "(--since is where the range starts, the older time; --until where it ends)\n"

    @Test(arguments: ["messages", "tasks", "summary", "tail", "export"])
    func anInvertedRangeIsAUsageError(_ command: String) async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            var arguments = [command, url.path, "--since", "1h", "--until", "2h"]
            if command == "export" { arguments += ["-o", url.deletingLastPathComponent().appendingPathComponent("x.log").path] }
            let run = await logstore(arguments)
            #expect(run.status == ExitStatus.usage)
            #expect(run.error.hasPrefix(Self.expected), "\(run.error)")
            #expect(run.output.isEmpty)
        }
    }

    @Test func anEmptyRangeIsRefusedAndTheRightOrderWorks() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeStore(at: url)
            let same = await logstore("messages", url.path, "--since", "2025-06-15T15:00:00Z", "--until=2025-06-15T15:00:00Z")
            #expect(same.status == ExitStatus.usage)
            #expect(same.error.hasPrefix(
                "logstore: empty time range: --since 2025-06-15T15:00:00Z is not before --until 2025-06-15T15:00:00Z"), "\(same.error)")
            // One message a minute up to now: 20 to 11 minutes ago.
            let right = await logstore("messages", url.path, "--since", "20m", "--until", "10m")
            #expect(right.status == 0, "\(right.error)")
            #expect(right.lines.count == 10, "\(right.output)")
        }
    }
}
