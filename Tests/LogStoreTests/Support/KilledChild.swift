import Foundation
import Glibc

/// The `LogStoreTestHelper` executable, built beside the test bundle.
let testHelperExecutable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("LogStoreTestHelper")

/// Starts `LogStoreTestHelper` with `arguments`, waits (at most `giveUpSeconds`, stretched by
/// ``TimeScale``) until its output contains `trigger`, kills it with SIGKILL `delayMilliseconds`
/// later (or at the give-up time) and returns every line it wrote, those written just before
/// the kill included. Blocking: run it on its own thread (``onOwnThread(_:)``).
func runAndKill(
    arguments: [String], after trigger: String, delayMilliseconds: Int, giveUpSeconds: Double
) throws -> [String] {
    let child = Process()
    child.executableURL = testHelperExecutable
    child.arguments = arguments
    let pipe = Pipe()
    child.standardOutput = pipe
    child.standardError = FileHandle.nullDevice
    try child.run()
    let descriptor = pipe.fileHandleForReading.fileDescriptor
    var output = [UInt8]()
    var killAt: Date?
    let giveUp = Date().addingTimeInterval(TimeScale.scaled(giveUpSeconds))
    var buffer = [UInt8](repeating: 0, count: 4096)
    var killed = false
    while true {
        let now = Date()
        if !killed, now >= min(killAt ?? giveUp, giveUp) {
            kill(child.processIdentifier, SIGKILL)
            killed = true
        }
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let wait = killed ? 5_000 : max(1, Int32(((killAt ?? giveUp).timeIntervalSince(now)) * 1000))
        guard poll(&poller, 1, wait) >= 0 || errno == EINTR else { break }
        guard poller.revents != 0 else {
            if killed { break }  // 5 s of silence after a kill: the pipe is held elsewhere.
            continue
        }
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 { if errno == EINTR { continue } else { break } }
        if count == 0 { break }  // The child is gone (killed, or ended by itself) and the pipe drained.
        output += buffer[0..<count]
        if killAt == nil, String(decoding: output, as: UTF8.self).contains(trigger) {
            killAt = Date().addingTimeInterval(Double(delayMilliseconds) / 1000)
        }
    }
    if !killed { kill(child.processIdentifier, SIGKILL) }
    child.waitUntilExit()
    return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
}
