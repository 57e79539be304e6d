// One of several processes sharing one store at once (MultiProcessStressTests).
//
//     LogStoreTestHelper stress <store> <role> <label> <cycles> <messages-per-cycle>
//
// Roles:
//   writer   keeps a read-only instance of the store open throughout; each cycle opens the store (with the change history on in odd cycles), logs
//            messages "<label> <seq>" (metadata seq=<seq>) and every 50th a task with a small
//            inline body, every 200th one with a 40 KB body of its own (a file in blobs/), flushes
//            and closes.
//   sweeper  a writer that also logs one message in ten dated 30 days back ("<label>-old") and
//            sweeps (age and size) three times a cycle while it logs.
//   tailer   each cycle opens the store read-only and tails it for about a second, checking
//            what it yields (ids that go back: repeats, counted, not an error).
// All the while a thread looks at this process's /proc/self/fd every 10 ms for a store file
// held although deleted: the sign that another process checkpointed and deleted the WAL under
// this one. Prints after each cycle:
//     cycle label=L n=C messages=M tasks=T
// and at the end:
//     result label=L messages=M tasks=T old=O sweeps=S seen=N outOfOrder=0 deleted=D errors=E
// preceded by one "error: …" line per failure; exits 1 when there was one.
import Foundation
import Glibc
import LogStore
import Synchronization

func runStressMode(arguments: [String]) async -> Never {
    guard arguments.count == 7, ["writer", "sweeper", "tailer"].contains(arguments[3]),
        let cycles = Int(arguments[5]), let perCycle = Int(arguments[6])
    else {
        FileHandle.standardError.write(Data(
            "usage: LogStoreTestHelper stress <store> writer|sweeper|tailer <label> <cycles> <messages-per-cycle>\n".utf8))
        exit(64)
    }
    // Load beside the test suite: behind the tests themselves.
    setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
    let store = URL(fileURLWithPath: arguments[2])
    let watch = DeletedFileWatch(directory: store.path)
    watch.start()
    let errors = SurfacedErrors()
    var tally = StressTally()
    let role = arguments[3]
    let label = arguments[4]
    // Writers keep a read-only instance of the store open beside the writing ones they open and
    // close, as an app with a viewer does: two instances on one directory in one process.
    var reader: LogStore?
    if role != "tailer" {
        do { reader = try await LogStore(storeURL: store, options: [.readonly]) } catch { errors.record(error) }
    }
    for cycle in 0..<cycles {
        do {
            if role == "tailer" {
                try await tailCycle(store, into: &tally)
            } else {
                try await writeCycle(
                    store, label: label, cycle: cycle, perCycle: perCycle, sweeps: role == "sweeper",
                    errors: errors, into: &tally)
                let found = try await reader?.count(MessageQuery(labels: [label])) ?? tally.messages
                if found < tally.messages { errors.record(StressError("the reader finds \(found) of \(tally.messages)")) }
            }
        } catch {
            errors.record(error)
        }
        say("cycle label=\(label) n=\(cycle) messages=\(tally.messages) tasks=\(tally.tasks)")
    }
    do { try await reader?.close() } catch { errors.record(error) }
    watch.stop()
    let surfaced = errors.all
    for error in surfaced { say("error: \(error)") }
    var fields = "label=\(label) messages=\(tally.messages) tasks=\(tally.tasks) old=\(tally.old) sweeps=\(tally.sweeps)"
    fields += " seen=\(tally.seen) outOfOrder=\(tally.outOfOrder) deleted=\(watch.sightings) errors=\(surfaced.count)"
    say("result \(fields)")
    exit(surfaced.isEmpty && watch.sightings == 0 ? 0 : 1)
}

struct StressError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Tells this process's messages from those of the same label in earlier rounds.
private let processToken = UUID().uuidString.prefix(8)

/// What one stress process acknowledged: counted only once a flush after them returned.
struct StressTally {
    var messages = 0
    var tasks = 0
    var old = 0
    var sweeps = 0
    var seen = 0
    var outOfOrder = 0
}

private func writeCycle(
    _ url: URL, label: String, cycle: Int, perCycle: Int, sweeps: Bool, errors: SurfacedErrors,
    into tally: inout StressTally
) async throws {
    var configuration = LogStore.Configuration()
    // A commit that found the database busy past the busy timeout (two loaded cores, four
    // processes) is retried by the library, and loses nothing: the counts tell. Anything else is
    // an error.
    configuration.onWriteError = { error in if error.databaseError?.isBusy != true { errors.record(error) } }
    // Sweeps by size run, and find the store within its limit: what every process
    // acknowledged stays, so the test can count it exactly.
    if cycle % 2 == 1 { configuration.history = HistoryConfiguration(currentAuthor: label) }
    let store = try await LogStore(storeURL: url, options: [.create], configuration: configuration)
    let sweeping: Task<Int, any Error>? = sweeps ? Task {
        var count = 0
        for _ in 0..<3 {
            _ = try await store.sweep()
            count += 1
            try await Task.sleep(for: .milliseconds(30))
        }
        return count
    } : nil
    let old = Date().addingTimeInterval(-30 * 86_400)
    var tasks = 0
    var oldLogged = 0
    var random = SystemRandomNumberGenerator()
    for index in 0..<perCycle {
        let seq = tally.messages + index
        store.storeMessage(
            label: label, level: .info, message: "\(label) \(seq)", metadata: ["seq": "\(processToken)-\(seq)"])
        if sweeps && index % 10 == 0 {
            store.storeMessage(createdAt: old, label: "\(label)-old", level: .info, message: "old \(seq)")
            oldLogged += 1
        }
        if index % 50 == 0 {
            let address = URL(string: "https://stress.example/\(label)/\(tally.tasks + tasks)")
            let body = index % 200 == 0
                ? Data((0..<40_000).map { _ in UInt8.random(in: 0...255, using: &random) })
                : Data("{\"seq\":\(seq)}".utf8)
            store.storeRequest(
                NetworkRequest(url: address, method: "POST"), response: NetworkResponse(url: address, statusCode: 200),
                error: nil, data: body)
            tasks += 1
        }
        if index % 500 == 499 { try await flushRetryingWhileBusy(store) }
    }
    try await flushRetryingWhileBusy(store)
    if let sweeping { tally.sweeps += try await sweeping.value }
    try await store.close()
    tally.messages += perCycle
    tally.tasks += tasks
    tally.old += oldLogged
}

/// `flush()`, again while it fails because the database stayed busy (the events stay queued and
/// are retried), for up to a minute.
private func flushRetryingWhileBusy(_ store: LogStore) async throws {
    let giveUp = ContinuousClock.now + .seconds(60)
    while true {
        do {
            return try await store.flush()
        } catch let error as LogStoreError where error.databaseError?.isBusy == true && ContinuousClock.now < giveUp {
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

private func tailCycle(_ url: URL, into tally: inout StressTally) async throws {
    let store = try await LogStore(storeURL: url, options: [.readonly])
    let tail = try await store.tail(MessageQuery(), from: .last(100))
    let reading = Task { () throws -> (seen: Int, outOfOrder: Int) in
        var seen = 0
        var outOfOrder = 0
        var last: Int64 = 0
        for try await message in tail {
            // Not an error here: when an age sweep removes the newest rows (messages dated
            // back) the tail goes back to be sure not to miss rows that reuse their ids, and
            // may repeat some (a known limit of its id-reuse check).
            if message.id <= last { outOfOrder += 1 }
            last = message.id
            seen += 1
        }
        return (seen, outOfOrder)
    }
    try await Task.sleep(for: .seconds(1))
    // A cancelled tail ends, with what it read so far.
    reading.cancel()
    let counts: (seen: Int, outOfOrder: Int)? = try await reading.value
    try await store.close()
    tally.seen += counts?.seen ?? 0
    tally.outOfOrder += counts?.outOfOrder ?? 0
}

/// Looks at `/proc/self/fd` every 10 ms, on a thread of its own, for a file under the store's
/// directory that is held although deleted.
final class DeletedFileWatch: Sendable {
    private let directory: String
    private let state = Mutex((running: false, sightings: 0, seen: [String]()))

    init(directory: String) { self.directory = directory }

    var sightings: Int { state.withLock { $0.sightings } }

    func start() {
        state.withLock { $0.running = true }
        Thread.detachNewThread { [self] in
            while state.withLock({ $0.running }) {
                for target in deletedTargets() {
                    state.withLock { state in
                        state.sightings += 1
                        if !state.seen.contains(target) {
                            state.seen.append(target)
                            say("error: holding a deleted store file: \(target)")
                        }
                    }
                }
                usleep(10_000)
            }
        }
    }

    func stop() {
        for target in deletedTargets() { state.withLock { $0.sightings += 1 }; say("error: holding a deleted store file: \(target)") }
        state.withLock { $0.running = false }
    }

    private func deletedTargets() -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .filter { $0.hasPrefix(directory) && $0.hasSuffix(" (deleted)") }
    }
}
