import Foundation
import LogStore
import Testing

/// A process that logs and then ends normally without `close()` keeps what it logged: the
/// README's `LogStore.shared` example. Run in a real child process (`LogStoreTestHelper`,
/// built beside the tests).
@Suite("Exit drain")
struct ExitDrainTests {
    static var helper: URL { testHelperExecutable }

    /// Fewer than the writer's wake threshold, logged at once: without the drain none would be
    /// committed before the process ends (the writer waits for its save interval).
    static let count = 1_000

    @Test(arguments: ["return", "exit"])
    func everythingLoggedBeforeANormalExitIsStored(mode: String) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.helper.path), "missing \(Self.helper.path)")
        try await withTemporaryStoreURL { url in
            let child = try await runChild([mode, url.path, String(Self.count)])
            #expect(child.termination == .exited(0), "\(child.output)")
            try await withStore(at: url, options: [.readonly]) { store throws in
                let messages = try await allMessages(store)
                #expect(messages.count == Self.count)
                #expect(messages.last?.text == "message \(Self.count - 1)")
            }
        }
    }

    /// exit() from the writer's own thread cannot wait for that writer: the process must still
    /// end (not hang in its exit handler), with the status it asked for.
    @Test func exitFromTheWriterThreadEnds() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.helper.path), "missing \(Self.helper.path)")
        try await withTemporaryStoreURL { url in
            let child = try await runChild(["exit-in-writer", url.path, "10"])
            #expect(child.termination == .exited(0), "\(child.output)")
        }
    }

    /// Runs the helper to its end; killed after 20 s, so a hang fails instead of blocking.
    private func runChild(_ arguments: [String]) async throws -> SpawnedProcess {
        try await SpawnedProcess.run(Self.helper, arguments, seconds: 20)
    }
}
