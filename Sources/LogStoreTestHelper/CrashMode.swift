// The crash-consistency child: logs at full speed until the test kills it with SIGKILL.
//
//     LogStoreTestHelper crash-log <store> <count> <flush-every>
//     LogStoreTestHelper crash-sweep <store> <count> <flush-every>    + sweeps of old data in a loop
//     LogStoreTestHelper crash-export <store> <count> <flush-every> <directory>  + exports in a loop
//     LogStoreTestHelper crash-sync <store> <count> <flush-every>     a `.synchronous` store, no flush()
//     LogStoreTestHelper crash-partitions <store> <count> <flush-every>  + blocks of old messages, each
//                                        a whole partition of the search index, swept (dropped) in a loop
//     LogStoreTestHelper crash-merges <store> <count> <flush-every>  small flushes leave the search
//                                        index's partitions in many segments; then logging pauses and the
//                                        writer merges them (SearchMerging) until the kill
//
// It writes to stdout, one line each: `ack <i>` once a flush() that followed message `crash <i>`
// returned (every message up to it is committed) — in `crash-sync`, once the logging call of
// message `crash <i>` itself returned, which `.synchronous` promises only after its commit — and `sweep <k>` / `export <k>` / `exported <k>`
// as its background work starts and ends, so the test knows what the kill interrupted.
import Foundation
import Glibc
import LogStore

func runCrashMode(arguments: [String]) async -> Never {
    guard arguments.count >= 5, let count = Int(arguments[3]), let flushEvery = Int(arguments[4]), flushEvery > 0,
          arguments[1] != "crash-export" || arguments.count == 6
    else {
        FileHandle.standardError.write(Data(
            "usage: LogStoreTestHelper crash-log|crash-sweep|crash-sync|crash-partitions|crash-merges <store> <count> <flush-every> | crash-export <store> <count> <flush-every> <directory>\n".utf8))
        exit(64)
    }
    // The test suite shares two cores: this load runs behind the tests themselves (as chromium does).
    setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
    let mode = arguments[1]
    do {
        let options: LogStore.Options = mode == "crash-sync" ? [.create, .synchronous] : [.create]
        var configuration = LogStore.Configuration()
        // Small: the search index's partitions hold their fewest messages (4,096).
        if mode == "crash-partitions" || mode == "crash-merges" { configuration.sizeLimit = 8_000_000 }
        let store = try await LogStore(
            storeURL: URL(fileURLWithPath: arguments[2]), options: options, configuration: configuration)
        switch mode {
        case "crash-sweep", "crash-partitions":
            Task.detached { await sweepForever(store) }
        case "crash-export":
            let directory = URL(fileURLWithPath: arguments[5], isDirectory: true)
            Task.detached { await exportForever(store, into: directory) }
        default:
            break
        }
        if mode == "crash-sync" {
            await logSynchronouslyUntilKilled(store, count: count)
        } else if mode == "crash-partitions" {
            try await logOldBlocksUntilKilled(store, count: count, flushEvery: flushEvery)
        } else if mode == "crash-merges" {
            // Two sealed partitions and an open one, in steps of 100 (quick enough at the lowest
            // priority beside the whole suite, and still dozens of segments per partition).
            try await logThenPauseUntilKilled(store, count: min(count, 12_288), flushEvery: max(flushEvery, 100))
        } else {
            try await logUntilKilled(store, count: count, flushEvery: flushEvery, withOldData: mode == "crash-sweep")
        }
        try await store.close()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(mode): \(error)\n".utf8))
        exit(1)
    }
}

/// Messages and tasks with bodies, interleaved; a flush every `flushEvery` events, each
/// acknowledged on stdout. Old data (30 days, past the default 14-day age limit) gives the sweeps
/// something to delete while the acknowledged messages, all recent, must stay.
private func logUntilKilled(_ store: LogStore, count: Int, flushEvery: Int, withOldData: Bool) async throws {
    var random = SystemRandomNumberGenerator()
    let url = URL(string: "https://api.example.com/items")
    let old = Date().addingTimeInterval(-30 * 24 * 3600)
    for index in 0..<count {
        store.storeMessage(label: "crash", level: .info, message: "crash \(index)")
        if index % 3 == 0 {
            storeTask(store, index: index, url: url, createdAt: withOldData && index % 2 == 0 ? old : nil, using: &random)
        }
        if withOldData, index % 2 == 1 {
            store.storeMessage(createdAt: old, label: "old", level: .debug, message: "old \(index)")
        }
        if index % flushEvery == flushEvery - 1 {
            try await store.flush()
            say("ack \(index)")
        }
    }
}

/// `crash-partitions`: acknowledged messages, and every so often a block of old messages (30 days,
/// with the word `stale`) larger than a partition of the search index, so some partition holds only
/// old ones and the looping sweep drops it whole while the kill may come.
private func logOldBlocksUntilKilled(_ store: LogStore, count: Int, flushEvery: Int) async throws {
    let old = Date().addingTimeInterval(-30 * 24 * 3600)
    for index in 0..<count {
        store.storeMessage(label: "crash", level: .info, message: "crash \(index)")
        if index % 500 == 0 {
            for block in 0..<6_000 {
                store.storeMessage(createdAt: old, label: "old", level: .debug, message: "stale \(index) \(block)")
            }
        }
        if index % flushEvery == flushEvery - 1 {
            try await store.flush()
            say("ack \(index)")
        }
    }
}

/// `crash-merges`: `count` messages in small flushes, each indexing step a segment of its own,
/// then no more logging: a second after the last commit the writer merges the partitions'
/// segments back to back. The one acknowledgement is said at that last commit; the test kills
/// about a second later, among those merges.
private func logThenPauseUntilKilled(_ store: LogStore, count: Int, flushEvery: Int) async throws {
    for index in 0..<count {
        store.storeMessage(label: "crash", level: .info, message: "crash \(index)")
        if index % flushEvery == flushEvery - 1 { try await store.flush() }
    }
    try await store.flush()
    say("ack \(count - 1)")
    while true { try await Task.sleep(for: .seconds(1)) }
}

/// A task with bodies: random bytes in base64 barely compress, so the 6 KB request body stays
/// inline and the 24 KB one becomes a file.
private func storeTask(
    _ store: LogStore, index: Int, url: URL?, createdAt: Date?, using random: inout SystemRandomNumberGenerator
) {
    let body = jsonBody(byteCount: index % 2 == 0 ? 24_000 : 6_000, using: &random)
    store.storeRequest(
        NetworkRequest(url: url, method: "POST", headers: ["Content-Type": "application/json"], body: body),
        response: NetworkResponse(url: url, statusCode: 200, headers: ["Content-Type": "application/json"]),
        error: nil, data: jsonBody(byteCount: 3_000, using: &random), createdAt: createdAt)
}

/// `crash-sync`: the same messages and tasks into a `.synchronous` store, each message
/// acknowledged as soon as its call returns. The calls block their thread until the commit, so
/// they run on a thread of their own, never on Swift's cooperative pool.
private func logSynchronouslyUntilKilled(_ store: LogStore, count: Int) async {
    await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
        let thread = Thread {
            var random = SystemRandomNumberGenerator()
            let url = URL(string: "https://api.example.com/items")
            for index in 0..<count {
                store.storeMessage(label: "crash", level: .info, message: "crash \(index)")
                say("ack \(index)")
                if index % 3 == 0 { storeTask(store, index: index, url: url, createdAt: nil, using: &random) }
            }
            finished.resume()
        }
        thread.name = "crash-sync-logger"
        thread.start()
    }
}

private func sweepForever(_ store: LogStore) async {
    var round = 0
    while true {
        say("sweep \(round)")
        do {
            _ = try await store.sweep()
        } catch {
            FileHandle.standardError.write(Data("sweep: \(error)\n".utf8))
            exit(1)
        }
        say("swept \(round)")
        round += 1
    }
}

private func exportForever(_ store: LogStore, into directory: URL) async {
    var round = 0
    while true {
        say("export \(round)")
        do {
            _ = try await store.export(to: directory.appendingPathComponent("export-\(round).lsarchive"))
        } catch {
            FileHandle.standardError.write(Data("export: \(error)\n".utf8))
            exit(1)
        }
        say("exported \(round)")
        // Only the newest finished archive is kept: the test opens what the directory holds.
        if round > 0 { unlink(directory.appendingPathComponent("export-\(round - 1).lsarchive").path) }
        round += 1
    }
}

private func jsonBody(byteCount: Int, using random: inout SystemRandomNumberGenerator) -> Data {
    let bytes = (0..<(byteCount * 3 / 4)).map { _ in UInt8.random(in: 0...255, using: &random) }
    return Data("{\"id\":\(UInt32.random(in: 0...UInt32.max, using: &random)),\"payload\":\"\(Data(bytes).base64EncodedString())\"}".utf8)
}
