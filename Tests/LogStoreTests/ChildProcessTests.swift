import Foundation
import Glibc
import Testing

/// The posix_spawn runner every test starts its children with (``SpawnedProcess``,
/// ``ChildProcess``): what it feeds, captures and reports, and that none of its waits can hang.
@Suite("Child processes")
struct ChildProcessTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")

    @Test func capturesOutputAndErrorApartWithTheExitStatus() async throws {
        let run = try await SpawnedProcess.run(
            Self.shell, ["-c", "echo out; echo err >&2; exit 3"], standardError: .captured, seconds: 30)
        #expect(run.output == "out\n")
        #expect(run.errorOutput == "err\n")
        #expect(run.termination == .exited(3))
        #expect(!run.timedOut)
    }

    @Test func feedsInputInAnEnvironmentAndDirectory() async throws {
        try await withTemporaryDirectory { directory in
            let input = [UInt8]("first\nsecond\n".utf8)
            let run = try await SpawnedProcess.run(
                Self.shell, ["-c", #"cat; echo "$SPAWN_TEST_VALUE"; pwd"#],
                environment: ["SPAWN_TEST_VALUE": "set"], workingDirectory: directory, input: input, seconds: 30)
            let directoryPath = directory.resolvingSymlinksInPath().path
            #expect(run.output == "first\nsecond\nset\n\(directoryPath)\n", "\(run.output)")
            #expect(run.termination == .exited(0))
        }
    }

    /// Only 0, 1 and 2 (and the directory `ls` reads, 3) are open in the child.
    @Test func inheritsNoOtherDescriptor() async throws {
        let run = try await SpawnedProcess.run(URL(fileURLWithPath: "/bin/ls"), ["/proc/self/fd"], seconds: 30)
        #expect(Set(run.output.split(separator: "\n")).isSubset(of: ["0", "1", "2", "3"]), "\(run.output)")
    }

    @Test func aChildPastItsBoundIsKilled() async throws {
        let run = try await SpawnedProcess.run(URL(fileURLWithPath: "/bin/sleep"), ["60"], seconds: 0.5)
        #expect(run.timedOut)
        #expect(run.termination == .signalled(SIGKILL))
        #expect(run.status == 128 + SIGKILL)
    }

    /// A grandchild that keeps the output pipe (and lives on for two minutes) does not hold the
    /// run past the child's end.
    @Test func aGrandchildHoldingThePipeDoesNotHoldTheRun() async throws {
        // Timed on the run's own thread: not the cooperative pool's turns under a busy suite.
        let (run, elapsed) = try await onOwnThread {
            let started = ContinuousClock.now
            let run = try SpawnedProcess.runBlocking(Self.shell, ["-c", "sleep 120 & echo $!"], seconds: 60)
            return (run, ContinuousClock.now - started)
        }
        if let grandchild = pid_t(run.output.trimmingCharacters(in: .whitespacesAndNewlines)) { kill(grandchild, SIGKILL) }
        #expect(run.termination == .exited(0), "\(run.output)")
        #expect(!run.timedOut)
        #expect(elapsed < .seconds(60))
    }

    @Test func aLongRunningChildIsStoppedContinuedAndSignalled() async throws {
        let child = try ChildProcess(Self.shell, ["-c", "echo ready; while :; do sleep 0.05; done"], standardOutput: .captured)
        defer { child.stop() }
        #expect(try await onOwnThread { child.waitForOutput(seconds: 30) { $0 == "ready\n" } } != nil)
        child.signal(SIGSTOP)
        // Stopped is not ended: the wait gives up, and leaves it running.
        #expect(try await onOwnThread { child.waitForTermination(seconds: 0.2) } == nil)
        #expect(child.isRunning)
        child.signal(SIGCONT)
        child.signal(SIGTERM)
        #expect(try await onOwnThread { child.waitForTermination(seconds: 30) } == .signalled(SIGTERM))
        #expect(try await onOwnThread { child.waitForOutputEnd(seconds: 30) })
        #expect(child.output == "ready\n")
    }

    @Test func aHeldInputEndsWhenClosed() async throws {
        let child = try ChildProcess(URL(fileURLWithPath: "/bin/cat"), [], standardInput: .held, standardOutput: .captured)
        defer { child.stop() }
        #expect(try await onOwnThread { child.waitForTermination(seconds: 0.2) } == nil)
        child.closeInput()
        #expect(try await child.waitForExit(seconds: 30) == 0)
    }

    @Test func aMissingExecutableFailsToSpawn() {
        #expect(throws: SpawnedProcess.SpawnFailed.self) {
            try ChildProcess(URL(fileURLWithPath: "/nonexistent/logstore-no-such-tool"), [])
        }
    }
}
