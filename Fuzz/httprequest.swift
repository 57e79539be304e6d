// libFuzzer target `httprequest`: built and run by Scripts/fuzz.sh, never by `swift build`.
// Compiled together with Tests/LogStoreTests/Fuzzing/FuzzEntry*.swift (the checks;
// they import the library).
import Foundation

/// libFuzzer's entry: one input per call; a finding traps so that libFuzzer saves the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    if let finding = FuzzEntry.httpRequest(data) { fatalError("fuzz finding: \(finding)") }
    return 0
}
