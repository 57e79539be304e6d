import Foundation
import Testing
@testable import LogStoreCLI

/// What a command says of a file that is neither a store nor an archive: one sentence, no
/// parentheses within parentheses.
@Suite struct NotAStoreMessageCLITests: CLITestCase {
    @Test func aFileThatIsNotAnArchiveIsSaidInOneSentence() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("passwd")
            try Data("root:x:0:0:root:/root:/bin/bash\n".utf8).write(to: file)
            let run = await logstore("info", file.path)
            #expect(run.status == ExitStatus.failure)
            #expect(run.error == "logstore: \(file.path) is not a store LogStore can open: it is not a SQLite file, so not a "
                + "LogStore archive; give a *.logstore directory or a *.lsarchive file\n", "\(run.error)")
            #expect(run.error.filter { $0 == "(" }.isEmpty)
        }
    }
}
