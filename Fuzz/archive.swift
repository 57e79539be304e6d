// libFuzzer target `archive`: built and run by Scripts/fuzz.sh, never by `swift build`.
// Compiled together with Tests/LogStoreTests/Fuzzing/FuzzEntry*.swift (the checks;
// they import the library).
import Foundation
import Synchronization

/// The one file each input is written to, replaced every time (one per process: `-jobs` safe).
let archiveFile = FileManager.default.temporaryDirectory.appendingPathComponent("logstore-fuzz-\(getpid()).lsarchive")

/// Where the detached task leaves its finding for the blocked harness thread.
final class FindingSlot: Sendable {
    /// Guards the finding: written once by the task, read after the semaphore.
    let finding = Mutex<String?>(nil)
    let done = DispatchSemaphore(value: 0)
}

/// libFuzzer's entry: one input per call; a finding traps so that libFuzzer saves the input.
/// libFuzzer's thread is not one of Swift's pool, so blocking it on the async API is safe.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    let slot = FindingSlot()
    Task.detached {
        let finding = await FuzzEntry.archive(data, at: archiveFile)
        slot.finding.withLock { $0 = finding }
        slot.done.signal()
    }
    slot.done.wait()
    if let finding = slot.finding.withLock({ $0 }) { fatalError("fuzz finding: \(finding)") }
    return 0
}
