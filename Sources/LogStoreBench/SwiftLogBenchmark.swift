#if SwiftLog
import Foundation
import Glibc
import LogStore
import Logging

/// `swiftlog.call_ns`: what one `logger.info(...)` with a small metadata dictionary costs the
/// caller through `LogStoreLogHandler`, beside the same calls reaching a handler that keeps
/// nothing (swift-log's own part of the call: the metadata dictionary, the event, the dispatch);
/// `swiftlog.vs_direct_ns`: the same figure beside the store's own `storeMessage` with the same
/// message and metadata, so what the bridge adds shows apart from what storing costs;
/// `swiftlog.vs_stream_ns`: the same figure beside swift-log's own `StreamLogHandler` writing
/// the same calls to `/dev/null`, the cost a swift-log user already accepts for a log line.
struct SwiftLogBenchmark {
    let quick: Bool
    let directory: URL
    /// Calls per timed round: below the store's pending-event limit, so no call waits for the
    /// writer and the figure is the call's own cost, not the disk's.
    static let round = 10_000

    func run() async throws -> [Figure] {
        let rounds = quick ? 10 : 50
        let url = directory.appendingPathComponent("swiftlog.logstore")
        let store = try await BenchStore.open(at: url)
        let ours = Logger(label: "http", factory: LogStoreLogHandler.factory(store: store))
        // Not `SwiftLogNoOpLogHandler`: its level is above `info`, so swift-log returns before it
        // builds the metadata, and the baseline was 9 ns of a level check.
        let noOp = Logger(label: "http", factory: { _ in DiscardingLogHandler() })
        let stream = Logger(label: "http", factory: { StreamLogHandler.standardOutput(label: $0, metadataProvider: nil) })
        let devNull = try DevNullStandardOutput()

        // One untimed round of each first, so none pays for first-call setup.
        _ = Self.timedRound(noOp, from: 0)
        _ = try devNull.whileRedirected { Self.timedRound(stream, from: 0) }
        _ = Self.timedRound(ours, from: 0)
        try await store.flush()
        _ = Self.timedDirectRound(store, from: 0)
        try await store.flush()
        var oursNanoseconds: UInt64 = 0
        var noOpNanoseconds: UInt64 = 0
        var directNanoseconds: UInt64 = 0
        var streamNanoseconds: UInt64 = 0
        for index in 0..<rounds {
            noOpNanoseconds += Self.timedRound(noOp, from: index * Self.round)
            streamNanoseconds += try devNull.whileRedirected { Self.timedRound(stream, from: index * Self.round) }
            oursNanoseconds += Self.timedRound(ours, from: index * Self.round)
            try await store.flush()
            directNanoseconds += Self.timedDirectRound(store, from: index * Self.round)
            // The writer commits between rounds, outside the timing.
            try await store.flush()
        }
        let info = try await store.info()
        let expected = 2 * (rounds + 1) * Self.round
        guard info.messageCount == expected, info.droppedEventCount == 0 else {
            throw BenchError.failed("swiftlog: stored \(info.messageCount) of \(expected), dropped \(info.droppedEventCount)")
        }
        try await BenchStore.closeAndDelete(store, at: url)

        let calls = Double(rounds * Self.round)
        return [
            Figure(
                name: "swiftlog.call_ns", value: Double(oursNanoseconds) / calls,
                baseline: Double(noOpNanoseconds) / calls, unit: "ns",
                baselineDescription: "the same logger.info calls reaching a handler that keeps nothing: swift-log's own part (thread CPU time)",
                target: "≤ 500 ns (issue 33's aim)"),
            Figure(
                name: "swiftlog.vs_direct_ns", value: Double(oursNanoseconds) / calls,
                baseline: Double(directNanoseconds) / calls, unit: "ns",
                baselineDescription: "the store's own storeMessage with the same label, message and metadata (thread CPU time)",
                target: "≤ 1.2× (issue 33)"),
            Figure(
                name: "swiftlog.vs_stream_ns", value: Double(oursNanoseconds) / calls,
                baseline: Double(streamNanoseconds) / calls, unit: "ns",
                baselineDescription: "the same logger.info calls through swift-log's StreamLogHandler.standardOutput, stdout on /dev/null (thread CPU time)",
                target: "≤ 1.0× (issue 33)"),
        ]
    }

    /// The calling thread's CPU nanoseconds for one round of calls shaped like a server's request
    /// log line. CPU time, not wall time: on a busy machine the wall clock also counts the time
    /// the thread waited for a core (behind the store's own writer, among others), which is not
    /// what a call costs its caller.
    static func timedRound(_ logger: Logger, from first: Int) -> UInt64 {
        let start = threadCPUNanoseconds()
        for index in first..<(first + round) {
            logger.info("GET /orders 200", metadata: ["user": "\(index % 997)", "route": "/orders", "ms": "12"])
        }
        return threadCPUNanoseconds() - start
    }

    /// The same round through the store's own API, with the metadata the handler would build
    /// (the call's three keys and `source`).
    static func timedDirectRound(_ store: LogStore, from first: Int) -> UInt64 {
        let start = threadCPUNanoseconds()
        for index in first..<(first + round) {
            store.storeMessage(
                label: "http", level: .info, message: "GET /orders 200",
                metadata: ["user": .string("\(index % 997)"), "route": "/orders", "ms": "12", "source": "LogStoreBench"])
        }
        return threadCPUNanoseconds() - start
    }

    /// A handler at `trace` that drops every event: what swift-log costs before any handler works.
    struct DiscardingLogHandler: LogHandler {
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {}
    }

    static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
#endif
