import Dispatch
import Foundation
import Synchronization

/// The archive's chunks processed on every core: each worker makes its own state once (a zlib
/// stream, a buffer) and takes the next chunk index until none is left or one fails; the first
/// failure stops the others and is thrown.
enum ChunkWorkers {
    static func forEach<State>(
        _ count: Int, makeState: @Sendable () throws -> State, _ body: @Sendable (inout State, Int) throws -> Void
    ) throws {
        let next = Atomic<Int>(0)
        let failure = Mutex<(any Error)?>(nil)
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8, count))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            do {
                var state = try makeState()
                while failure.withLock({ $0 == nil }) {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < count else { return }
                    try body(&state, index)
                }
            } catch {
                failure.withLock { if $0 == nil { $0 = error } }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
