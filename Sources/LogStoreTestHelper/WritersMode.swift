// One of several processes writing the same store at once (ManyWritersTests).
//
//     LogStoreTestHelper writers <store> <count> <label> [<sweep-every-ms>]
//
// Logs `count` messages with `label`, texts "<label> <i>" and metadata seq=<i> (the per-process
// sequence the test checks for losses and duplicates), levels cycling through every level, in
// chunks of 500 each followed by `flush()`, so this process's commits interleave with the
// others'. With a sweep interval it also logs one message every 10 dated 30 days back (label
// "<label>-old") and runs `sweep()` every that many milliseconds, then a last one after its
// final flush: its deletions contend with the other processes' inserts.
//
// Prints one line to standard output:
//     result label=L logged=N old=M sweeps=S removed=R writeErrors=W dropped=D rejected=X session=UUID
// preceded by one "error: …" line per failure any call surfaced; exits 1 when there was one.
import Foundation
import LogStore
import Synchronization

/// The errors this process saw, from any thread (`onWriteError` runs on the writer's).
final class SurfacedErrors: Sendable {
    private let descriptions = Mutex<[String]>([])

    func record(_ error: any Error) { descriptions.withLock { $0.append(String(describing: error)) } }

    var all: [String] { descriptions.withLock { $0 } }
}

/// Whether logging still runs: the sweeping task stops after its current sweep once it is not.
final class LoggingFlag: Sendable {
    private let running = Atomic(true)

    var isRunning: Bool { running.load(ordering: .acquiring) }

    func finish() { running.store(false, ordering: .releasing) }
}

/// What the sweeping task did.
struct SweepTally: Sendable {
    var sweeps = 0
    var removedMessages = 0
}

/// Runs the `writers` mode and ends the process with its status.
///
/// The mode's strings and store are released before `exit`: `exit` does not unwind, and whatever is
/// still alive then is reachable only through Swift's bit-packed references (a String's storage
/// pointer carries flags in its top bits), which LeakSanitizer does not recognise, so a sanitized
/// child would report them as leaks and exit non-zero.
func runWritersMode(arguments: [String]) async -> Never {
    let status = await writersModeStatus(arguments: arguments)
    exit(status)
}

/// The `writers` mode: its exit status (64 for a usage error, 1 when an error surfaced).
private func writersModeStatus(arguments: [String]) async -> Int32 {
    guard arguments.count == 5 || arguments.count == 6, let count = Int(arguments[3]), count >= 0 else {
        FileHandle.standardError.write(Data("usage: LogStoreTestHelper writers <store> <count> <label> [<sweep-every-ms>]\n".utf8))
        return 64
    }
    let label = arguments[4]
    var sweepInterval: Duration?
    if arguments.count == 6 {
        guard let milliseconds = Int(arguments[5]), milliseconds > 0 else {
            FileHandle.standardError.write(Data("writers: the sweep interval is a positive number of milliseconds\n".utf8))
            return 64
        }
        sweepInterval = .milliseconds(milliseconds)
    }
    let errors = SurfacedErrors()
    var configuration = LogStore.Configuration()
    configuration.onWriteError = { errors.record($0) }
    let store: LogStore
    do {
        store = try await LogStore(
            storeURL: URL(fileURLWithPath: arguments[2]), options: [.create], configuration: configuration)
    } catch {
        print("error: open: \(error)")
        return 1
    }

    let logging = LoggingFlag()
    let sweeper: Task<SweepTally, Never>? = sweepInterval.map { interval in
        Task {
            var tally = SweepTally()
            // At least one sweep while logging runs, however fast logging is.
            repeat {
                do {
                    tally.removedMessages += try await store.sweep().removedMessages
                    tally.sweeps += 1
                    try await Task.sleep(for: interval)
                } catch {
                    errors.record(error)
                    return tally
                }
            } while logging.isRunning
            return tally
        }
    }

    let levels = LogStore.Level.allCases
    let old = Date().addingTimeInterval(-30 * 86_400)
    var oldLogged = 0
    for index in 0..<count {
        store.storeMessage(
            label: label, level: levels[index % levels.count], message: "\(label) \(index)",
            metadata: ["seq": "\(index)"])
        if sweepInterval != nil, index % 10 == 0 {
            store.storeMessage(createdAt: old, label: "\(label)-old", level: .info, message: "old \(index)")
            oldLogged += 1
        }
        if index % 500 == 499 {
            do { try await store.flush() } catch { errors.record(error) }
        }
    }
    do { try await store.flush() } catch { errors.record(error) }
    logging.finish()
    var tally = await sweeper?.value ?? SweepTally()
    if sweepInterval != nil {
        // Everything old this process logged is committed now: the last sweep takes the rest.
        do {
            tally.removedMessages += try await store.sweep().removedMessages
            tally.sweeps += 1
        } catch {
            errors.record(error)
        }
    }

    var fields = "label=\(label) logged=\(count) old=\(oldLogged) sweeps=\(tally.sweeps) removed=\(tally.removedMessages)"
    do {
        let info = try await store.info()
        fields += " writeErrors=\(info.writeErrorCount) dropped=\(info.droppedEventCount)"
        fields += " rejected=\(info.rejectedEventCount) session=\(store.session.id.uuidString)"
    } catch {
        errors.record(error)
    }
    do { try await store.close() } catch { errors.record(error) }
    let surfaced = errors.all
    for error in surfaced { print("error: \(error)") }
    print("result \(fields)")
    return surfaced.isEmpty ? 0 : 1
}
