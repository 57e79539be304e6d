// LeakSanitizer: FoundationEssentials' Data(contentsOf:) of an empty file leaks a 4096-byte buffer
// (the reason for the readBytesFromFile entry in Scripts/lsan-suppressions.txt).
//   swiftc -sanitize=address Scripts/lsan-empty-file-demo.swift -o /tmp/demo && /tmp/demo empty
// prints "12288 byte(s) leaked in 3 allocation(s)"; `/tmp/demo page` (a 4096-byte file) is clean.
import Foundation

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lsan-demo-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let file = directory.appendingPathComponent("file")
let isEmpty = CommandLine.arguments.dropFirst().first != "page"
try Data(count: isEmpty ? 0 : 4096).write(to: file)
for _ in 0..<3 { print(try Data(contentsOf: file).count) }
try FileManager.default.removeItem(at: directory)
