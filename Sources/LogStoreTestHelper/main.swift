// A child process for the tests that need a real exit: it logs and ends without close().
//
//     LogStoreTestHelper return <store> <count>        log through LogStore.shared, return from main
//     LogStoreTestHelper exit <store> <count>          the same, then exit(0) from another thread
//     LogStoreTestHelper exit-in-writer <store> <count>  exit(0) from willHandleEvent, on the writer
import Foundation
import LogStore

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: LogStoreTestHelper return|exit|exit-in-writer <store> <count>\n".utf8))
    exit(64)
}
let mode = arguments[1]
var configuration = LogStore.Configuration()
if mode == "exit-in-writer" {
    configuration.willHandleEvent = { _ in exit(0) }
}
do {
    let store = try await LogStore(
        storeURL: URL(fileURLWithPath: arguments[2]), options: [.create], configuration: configuration)
    LogStore.bootstrap(store)
} catch {
    FileHandle.standardError.write(Data("cannot open the store: \(error)\n".utf8))
    exit(1)
}
for index in 0..<count {
    LogStore.shared?.storeMessage(label: "child", level: .info, message: "message \(index)")
}
switch mode {
case "exit":
    // Not the main thread, and the main thread stays busy: the handler runs where exit() is called.
    Thread.detachNewThread { exit(0) }
    while true { sleep(1) }
case "exit-in-writer":
    // The writer exits the process when it takes its first batch.
    while true { sleep(1) }
default:
    break
}
