import Foundation
import LogStore

/// The child process of the cross-process latency figures (`tail.*`, `history.notify_*`): this
/// executable re-run with a benchmark's flag, then `COUNT PER_SECOND STORE`. It logs `COUNT`
/// messages at a steady `PER_SECOND` under `label`, each text its send time
/// (``TailBenchmark/realtimeNanoseconds()``, a clock both processes share), and closes the store.
enum PacedWriterChild {
    /// The child's exit code when `arguments` start with `flag`; `nil` for an ordinary run.
    static func runIfAsked(
        _ arguments: [String], flag: String, label: String, configuration: LogStore.Configuration
    ) async -> Int32? {
        guard arguments.first == flag else { return nil }
        guard arguments.count == 4, let count = Int(arguments[1]), let perSecond = Double(arguments[2]), perSecond > 0
        else { return 64 }
        do {
            let store = try await LogStore(storeURL: URL(fileURLWithPath: arguments[3]), options: [], configuration: configuration)
            let start = ContinuousClock.now
            for index in 0..<count {
                // Paced against the start: the rate holds whatever one sleep overshoots.
                let due = start + .seconds(Double(index) / perSecond)
                if due > .now { try await Task.sleep(until: due, clock: .continuous) }
                store.storeMessage(label: label, level: .info, message: String(TailBenchmark.realtimeNanoseconds()))
            }
            try await store.close()
            return 0
        } catch {
            FileHandle.standardError.write(Data("\(label) writer: \(error)\n".utf8))
            return 1
        }
    }
}
