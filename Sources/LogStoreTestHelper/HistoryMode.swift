// The change-history children: authors in processes of their own (HistoryTwoProcessTests,
// HistoryCleanupPropertyTests).
//
//     LogStoreTestHelper history-author <store> <count> <author> <other> <own 0|1> <run>
//     LogStoreTestHelper history-consume <store> 0 <author> <hook-ms> <clean-every-n|0>
//
// `history-author` is one of two authors logging at once: `author`, with `other` among its
// authors, delivering its own changes too when `own` is 1. A merge hook prints each transaction
// it is given, one line each,
//     txn <id> <author> <seq>:<entity>:<operation>:<ids>,…
// It logs `count` messages (a network task every fifth) in transactions of a few events, then a
// last message labelled `done-<author>-<run>`, waits until the other's `done-<other>-<run>` is
// committed (the run keeps an earlier run's message from counting) and
// its own cursor has passed every change it is to consume, prints `caught-up <cursor>` and
// closes: nothing it printed is unconsumed, so a restart must deliver none of it again.
//
// `history-consume` only consumes, as `author` of the authors "a", "b" and the batch author "n":
// its hook prints `merge-start <first txn> <last seq>`, takes `hook-ms`, prints `merge-end <last
// seq>`. It prints `ready` just before it registers the hook and waits to be killed (SIGKILL, by the
// property test), exiting with 1 after 30 s if nobody does.
//
// Lines go out with one write(2) each: what reached the pipe before a kill is whole.
import Foundation
import Glibc
import LogStore

/// Runs a `history-…` mode and ends the process with its status.
func runHistoryMode(arguments: [String]) async -> Never {
    // Behind the test suite itself on two cores, as the other children run.
    setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
    let status: Int32 = switch arguments[1] {
    case "history-author": await historyAuthorStatus(arguments: arguments)
    case "history-consume": await historyConsumeStatus(arguments: arguments)
    default: usage()
    }
    exit(status)
}

private func usage() -> Int32 {
    FileHandle.standardError.write(Data("""
        usage: LogStoreTestHelper history-author <store> <count> <author> <other> <own 0|1> <run>
               LogStoreTestHelper history-consume <store> 0 <author> <hook-ms> <clean-every-n|0>

        """.utf8))
    return 64
}

/// One line per change: `seq:entity:operation:ids`, the form the tests rebuild from the table.
private func describe(_ transaction: HistoryTransaction) -> String {
    let changes = transaction.changes.map { "\($0.sequence):\($0.entity):\($0.operation):\($0.ids.count)" }
    return "txn \(transaction.id) \(transaction.author) \(changes.joined(separator: ","))"
}

private func historyAuthorStatus(arguments: [String]) async -> Int32 {
    guard arguments.count == 8, let count = Int(arguments[3]), count >= 0, let own = Int(arguments[6]) else {
        return usage()
    }
    let (author, other, run) = (arguments[4], arguments[5], arguments[7])
    var configuration = LogStore.Configuration()
    configuration.history = HistoryConfiguration(currentAuthor: author, allAuthors: [other], includesOwnChanges: own == 1)
    do {
        let store = try await LogStore(
            storeURL: URL(fileURLWithPath: arguments[2]), options: [.create], configuration: configuration)
        await store.registerMergeHook { batch in
            for transaction in batch.transactions { say(describe(transaction)) }
            return .goOn
        }
        say("ready")
        let url = URL(string: "https://api.example.com/orders")
        for index in 0..<count {
            store.storeMessage(label: author, level: .info, message: "\(author) \(index)")
            if index % 5 == 0 {
                store.storeRequest(
                    NetworkRequest(url: url, method: "GET"), response: NetworkResponse(url: url, statusCode: 200),
                    error: nil, data: Data("{\"n\":\(index)}".utf8), label: author)
            }
            // A few events per transaction: the two processes' commits interleave.
            if index % 4 == 3 { try await store.flush() }
        }
        store.storeMessage(label: "done-\(author)-\(run)", level: .info, message: "done")
        try await store.flush()
        let cursor = try await waitUntilCaughtUp(store, author: author, other: other, run: run, own: own == 1)
        say("caught-up \(cursor)")
        try await store.close()
        return 0
    } catch {
        say("error: \(error)")
        return 1
    }
}

/// Waits (at most 30 s) until `other` has logged its last message and this author's cursor has
/// passed every change it consumes; returns the cursor.
private func waitUntilCaughtUp(
    _ store: LogStore, author: String, other: String, run: String, own: Bool
) async throws -> Int64 {
    struct TimedOut: Error, CustomStringConvertible {
        let description = "timed out waiting for the other author"
    }
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        let state = try await store.read { db in
            let done = try db.scalar("SELECT count(*) FROM message_rows WHERE label = ?", [.text("done-\(other)-\(run)")])
            let target = try db.scalar("""
                SELECT max(seq) FROM history JOIN history_authors ON history_authors.id = history.author_id
                WHERE name = ? OR ?
                """, [.text(other), .integer(own ? 1 : 0)])
            let cursor = try db.scalar("SELECT cursor FROM history_authors WHERE name = ?", [.text(author)])
            return (done?.integer ?? 0, target?.integer ?? 0, cursor?.integer ?? 0)
        }
        if state.0 > 0, state.2 >= state.1 { return state.2 }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TimedOut()
}

private func historyConsumeStatus(arguments: [String]) async -> Int32 {
    guard arguments.count == 7, let hookMilliseconds = Int(arguments[5]), let every = Int(arguments[6]) else {
        return usage()
    }
    var configuration = LogStore.Configuration()
    configuration.history = HistoryConfiguration(
        currentAuthor: arguments[4], allAuthors: ["a", "b", "n"], batchAuthors: ["n"],
        cleanStrategy: every > 0 ? .everyNMerges(every) : .none)
    do {
        let store = try await LogStore(
            storeURL: URL(fileURLWithPath: arguments[2]), options: [.create], configuration: configuration)
        // Before the hook: a hook's first merge may start (and print) as soon as it registers.
        say("ready")
        await store.registerMergeHook { batch in
            let last = batch.transactions.last?.lastSequence ?? 0
            say("merge-start \(batch.transactions.first?.id ?? 0) \(last)")
            // Long enough for the test to kill this process inside the merge.
            try await Task.sleep(for: .milliseconds(hookMilliseconds))
            say("merge-end \(last)")
            return .goOn
        }
        try await Task.sleep(for: .seconds(30))
        say("error: not killed within 30 s")
        return 1
    } catch {
        say("error: \(error)")
        return 1
    }
}
