// libFuzzer target `decoders`: built and run by Scripts/fuzz.sh, never by `swift build`.
import Foundation

@testable import LogStore

/// libFuzzer's entry: one input per call; a finding traps so that libFuzzer saves the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    if let finding = FuzzEntry.decoders(data) { fatalError("fuzz finding: \(finding)") }
    return 0
}
