// A child process for the tests that need a real exit: it logs and ends without close().
//
//     LogStoreTestHelper return <store> <count>        log through LogStore.shared, return from main
//     LogStoreTestHelper exit <store> <count>          the same, then exit(0) from another thread
//     LogStoreTestHelper exit-in-writer <store> <count>  exit(0) from willHandleEvent, on the writer
//     LogStoreTestHelper steady <store> <count> <per-second>  log at a steady rate, then close()
//                                                      (a writer for the live-tail tests)
//     LogStoreTestHelper writers <store> <count> <label> [<sweep-ms>]  one of many writers (WritersMode.swift)
//     LogStoreTestHelper crash-… <store> <count> <flush-every> …  see CrashMode.swift
//     LogStoreTestHelper history-… <store> <count> …   change-history authors, see HistoryMode.swift
//     LogStoreTestHelper damage <store> <count> <script> close|exit  a writer whose database is damaged (DamageMode.swift)
//     LogStoreTestHelper stress <store> <role> <label> <cycles> <n>  one of several processes on one store (StressMode.swift)
//     LogStoreTestHelper node <store> <count> <per-second>  a fleet node logging messages and tasks (NodeMode.swift)
//     LogStoreTestHelper paced <store> <count> <per-second> <save-interval-ms>  send times as texts (PacedMode.swift)
//     LogStoreTestHelper reader-backlog <store> <count>  who copies what a long reader held back (ReaderBacklogMode.swift)
//     LogStoreTestHelper reopen <store> <rounds>        open and close a store again and again (ReopenMode.swift)
import Foundation
import LogStore

let arguments = CommandLine.arguments
// Its third argument is a role, not a count.
if arguments.count > 1, arguments[1] == "stress" { await runStressMode(arguments: arguments) }
guard arguments.count >= 4, let count = Int(arguments[3]) else {
    FileHandle.standardError.write(Data(
        "usage: LogStoreTestHelper return|exit|exit-in-writer <store> <count> | steady <store> <count> <per-second>\n".utf8))
    exit(64)
}
let mode = arguments[1]
if mode == "writers" { await runWritersMode(arguments: arguments) }
if mode.hasPrefix("crash-") { await runCrashMode(arguments: arguments) }
if mode == "permissions" { await runPermissionsMode(arguments: arguments) }
if mode.hasPrefix("history-") { await runHistoryMode(arguments: arguments) }
if mode == "damage" { await runDamageMode(arguments: arguments) }
if mode == "node" { await runNodeMode(arguments: arguments) }
if mode == "paced" { await runPacedMode(arguments: arguments) }
if mode == "reader-backlog" { await runReaderBacklogMode(arguments: arguments) }
if mode == "reopen" { await runReopenMode(arguments: arguments) }
if mode == "steady" {
    guard arguments.count == 5, let perSecond = Double(arguments[4]), perSecond > 0 else {
        FileHandle.standardError.write(Data("usage: LogStoreTestHelper steady <store> <count> <per-second>\n".utf8))
        exit(64)
    }
    do {
        let store = try await LogStore(storeURL: URL(fileURLWithPath: arguments[2]), options: [.create])
        let start = ContinuousClock.now
        for index in 0..<count {
            // Paced against the start, not by sleeping a fixed time per message: the rate holds.
            let due = start + .seconds(Double(index) / perSecond)
            if due > .now { try await Task.sleep(until: due, clock: .continuous) }
            store.storeMessage(label: "child", level: index % 10 == 0 ? .error : .info, message: "message \(index)")
        }
        try await store.close()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("steady: \(error)\n".utf8))
        exit(1)
    }
}
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
