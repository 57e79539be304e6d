import Foundation
import Testing

/// The folders of `Sources/LogStore` are layers (DEVELOPERS.md, "The layers"): a folder uses
/// only those below it, so no two folders use each other. `Scripts/layers.py --check` finds
/// every use of a type name of a folder above; this test fails with its list.
@Suite("Layering")
struct LayeringTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let hasPython = isOnPath("python3")

    @Test(.enabled(if: hasPython, "needs python3"))
    func noFolderUsesOneAboveIt() async throws {
        let script = Self.repository.appendingPathComponent("Scripts/layers.py")
        let run = try await SpawnedProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, "--check"], seconds: 60)
        #expect(!run.timedOut && run.status == 0, "\(run.output)")
    }
}
