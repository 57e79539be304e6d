import Foundation
import Glibc

/// The `LogStoreTestHelper` executable, built beside the test bundle.
let testHelperExecutable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("LogStoreTestHelper")

/// Starts `LogStoreTestHelper` with `arguments`, waits (at most `giveUpSeconds`, stretched by
/// ``TimeScale``) until its output contains `trigger`, kills it with SIGKILL `delayMilliseconds`
/// after that output arrived (or at the give-up time) and returns every line it wrote, those
/// written just before the kill included. Blocking: run it on its own thread (``onOwnThread(_:)``).
func runAndKill(
    arguments: [String], after trigger: String, delayMilliseconds: Int, giveUpSeconds: Double
) throws -> [String] {
    let giveUp = ContinuousClock.now + .seconds(TimeScale.scaled(giveUpSeconds))
    let child = try ChildProcess(testHelperExecutable, arguments, standardOutput: .captured)
    defer { child.stop() }
    // `nil` when the child ended (its output with it) or the give-up time came first.
    if let triggered = child.waitForOutput(seconds: giveUpSeconds, until: { $0.contains(trigger) }) {
        // Timed from the trigger's arrival, not from this thread's wake-up after it.
        let killAt = min(triggered.arrivedAt + .milliseconds(delayMilliseconds), giveUp)
        let wait = killAt - .now
        if wait > .zero { Thread.sleep(forTimeInterval: wait / .seconds(1)) }
    }
    child.stop()
    guard child.waitForTermination(seconds: SpawnedProcess.killGraceSeconds) != nil else {
        throw TimeLimitExceeded(seconds: SpawnedProcess.killGraceSeconds)
    }
    // What it wrote before the kill is in the pipe: the reader takes it, then stops.
    _ = child.waitForOutputEnd(seconds: 5)
    return child.output.split(separator: "\n").map(String.init)
}
