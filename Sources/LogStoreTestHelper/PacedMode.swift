import Foundation
import Glibc
import LogStore

/// `LogStoreTestHelper paced <store> <count> <per-second> <save-interval-ms> [<hold-ms>]`: a
/// writer for the live-latency tests. It logs `count` messages at a steady rate with the given
/// save interval, each text its send time (nanoseconds on `CLOCK_REALTIME`, a clock every
/// process shares), waits `hold-ms` (0 by default) with the store open, and closes the store.
func runPacedMode(arguments: [String]) async -> Never {
    guard arguments.count == 6 || arguments.count == 7, let count = Int(arguments[3]),
        let perSecond = Double(arguments[4]), perSecond > 0, let saveInterval = Int(arguments[5]),
        let hold = arguments.count == 7 ? Int(arguments[6]) : 0
    else {
        FileHandle.standardError.write(
            Data("usage: LogStoreTestHelper paced <store> <count> <per-second> <save-interval-ms> [<hold-ms>]\n".utf8))
        exit(64)
    }
    var configuration = LogStore.Configuration()
    configuration.saveInterval = .milliseconds(saveInterval)
    do {
        let store = try await LogStore(
            storeURL: URL(fileURLWithPath: arguments[2]), options: [.create], configuration: configuration)
        let start = ContinuousClock.now
        for index in 0..<count {
            let due = start + .seconds(Double(index) / perSecond)
            if due > .now { try await Task.sleep(until: due, clock: .continuous) }
            var time = timespec()
            clock_gettime(CLOCK_REALTIME, &time)
            store.storeMessage(label: "paced", level: .info, message: String(Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)))
        }
        try await Task.sleep(for: .milliseconds(hold))
        try await store.close()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("paced: \(error)\n".utf8))
        exit(1)
    }
}
