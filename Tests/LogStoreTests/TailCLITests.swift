import Dispatch
import Foundation
import Glibc
import LogStore
import Synchronization
import Testing
@testable import LogStoreCLI

/// `logstore tail` run as a real process (it follows until a signal), against a store another
/// process writes; its usage errors through the in-process entry point.
@Suite("CLI tail")
struct TailCLITests {
    static var logstore: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("logstore")
    }

    /// The lines `child` printed, once there are `count` of them or `seconds` passed (waited for
    /// on a thread of its own).
    func printedLines(of child: ChildProcess, count: Int, seconds: Double = 10) async throws -> [String] {
        let text = try await onOwnThread {
            child.waitForOutput(seconds: seconds) { $0.split(separator: "\n").count >= count }?.text
        }
        return (text ?? child.output).split(separator: "\n").map(String.init)
    }

    func makeStore(_ url: URL, messages: Int) async throws {
        try await withStore(at: url) { store in
            for index in 0..<messages { store.storeMessage(label: "seed", level: .info, message: "seed \(index)") }
            try await store.flush()
        }
    }

    @Test func followsAnotherProcessAndEndsOnSIGINT() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.logstore.path), "missing \(Self.logstore.path)")
        try await withTemporaryStoreURL { url in
            try await makeStore(url, messages: 5)
            let tail = try ChildProcess(
                Self.logstore, ["tail", url.path, "-n", "2", "--show-cursor"], standardOutput: .captured)
            defer { tail.stop() }
            let head = try await printedLines(of: tail, count: 2)
            #expect(head.map { $0.hasSuffix("seed 3") || $0.hasSuffix("seed 4") } == [true, true])
            let writer = try ChildProcess(ExitDrainTests.helper, ["steady", url.path, "50", "500"])
            defer { writer.stop() }
            let lines = try await printedLines(of: tail, count: 52)
            try #require(lines.count >= 52, "\(lines)")
            let followed = Array(lines[2..<52])
            #expect(followed.indices.allSatisfy { followed[$0].hasSuffix(" message \($0)") }, "\(followed)")
            #expect(try await writer.waitForExit(seconds: 10) == 0)
            tail.signal(SIGINT)
            #expect(try await tail.waitForExit(seconds: 10) == 0)
            let final = try await printedLines(of: tail, count: 53)
            // 5 seeds, then 50 from the child: the last message is the 55th row.
            #expect(final.last == "-- cursor: m55")
        }
    }

    @Test func printsNDJSONAndEndsOnSIGTERM() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.logstore.path), "missing \(Self.logstore.path)")
        try await withTemporaryStoreURL { url in
            try await makeStore(url, messages: 3)
            let tail = try ChildProcess(
                Self.logstore, ["tail", url.path, "--json", "-n", "3", "--label", "seed"], standardOutput: .captured)
            defer { tail.stop() }
            let lines = try await printedLines(of: tail, count: 3)
            let objects = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            #expect(objects.map { $0["text"] as? String } == ["seed 0", "seed 1", "seed 2"])
            #expect(objects.map { $0["level"] as? String } == ["info", "info", "info"])
            tail.signal(SIGTERM)
            #expect(try await tail.waitForExit(seconds: 10) == 0)
        }
    }

    @Test(arguments: [
        (["tail"], "missing <store>"),
        (["tail", "s.logstore", "-n", "-1"], "--lines"),
        (["tail", "s.logstore", "-n", "ten"], "--lines"),
        (["tail", "s.logstore", "--after-cursor", "x12"], "--after-cursor"),
        (["tail", "s.logstore", "--after-cursor", "m1", "-n", "3"], "cannot be combined"),
        (["tail", "s.logstore", "--limit", "3"], "unknown option '--limit'"),
        (["tail", "s.logstore", "-x"], "unknown option '-x'"),
        (["tail", "s.logstore", "--level", "loud"], "--level"),
    ])
    func badOptionsAreUsageErrors(arguments: [String], message: String) async throws {
        var output = ""
        var error = ""
        let status = await LogStoreCommand.run(arguments, output: &output, error: &error)
        #expect(status == 64)
        #expect(error.contains(message), "\(error)")
        #expect(error.contains("Usage: logstore tail <store>"))
    }
}
