import Dispatch
import Foundation
import LogStore
import Testing

/// `sweep(progress:)` through the public API: phases in order, counts that only grow, a last
/// `finished` report delivered before the call returns, and a slow callback that holds back no sweep.
@Suite("SweepProgress")
struct SweepProgressTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func configuration() -> LogStore.Configuration {
        var configuration = LogStore.Configuration()
        configuration.overflowPolicy = .waitForSpace
        configuration.maxAge = .seconds(86_400)
        configuration.timeSource = LogStore.TimeSource(now: { now }, sleep: { try await Task.sleep(for: $0) })
        return configuration
    }

    /// `count` messages a week old, and as many new ones (which stay), in the open store.
    static func logOldAndNew(_ store: LogStore, count: Int) async throws {
        try await onOwnThread {
            for i in 0..<count {
                store.storeMessage(
                    createdAt: now.addingTimeInterval(-7 * 86_400 + Double(i)), label: "old", level: .info,
                    message: "old message \(i)")
                store.storeMessage(
                    createdAt: now.addingTimeInterval(-60 + Double(i) / 1_000), label: "new", level: .info,
                    message: "new message \(i)")
            }
        }
        try await store.flush()
    }

    @Test func phasesComeInOrderCountsGrowAndFinishedIsLast() async throws {
        try await withTemporaryStoreURL { url in
            // Two runs: the old messages lie in two sessions' blocks, more than one first step.
            for _ in 0..<2 {
                try await withStore(at: url, configuration: Self.configuration()) {
                    try await Self.logOldAndNew($0, count: 6_000)
                }
            }
            try await withStore(at: url, configuration: Self.configuration()) { store in
                let reports = Recorder<[SweepProgress]>([])
                let report = try await withinTimeLimit(seconds: 30) {
                    try await store.sweep { progress in reports.update { $0.append(progress) } }
                }
                // Delivered before the call returned, and the last.
                let seen = reports.current
                #expect(seen.last?.phase == .finished)
                #expect(seen.filter { $0.phase == .finished }.count == 1)
                #expect(report.removedMessages == 12_000)

                let order = SweepProgress.Phase.allCases
                let indexes = seen.map { order.firstIndex(of: $0.phase) ?? -1 }
                #expect(indexes == indexes.sorted(), "\(seen.map(\.phase))")
                #expect(seen.first?.phase == .removingOldMessages)
                #expect(seen.first { $0.phase == .removingOldMessages }?.total == 12_000)
                #expect(seen.contains { $0.phase == .givingSpaceBack })
                for (previous, next) in zip(seen, seen.dropFirst()) where previous.phase == next.phase {
                    #expect(next.completed >= previous.completed)
                }
                for progress in seen {
                    if let total = progress.total { #expect(progress.completed <= total || progress.phase == .finished) }
                    if let fraction = progress.phaseFractionCompleted { #expect((0...1).contains(fraction)) }
                }
                #expect(seen.last?.phaseFractionCompleted == 1)
            }
        }
    }

    @Test func aSweepAskedForWhileReportsAreDeliveredStartsAnew() async throws {
        try await withTemporaryStore(configuration: Self.configuration()) { store, _ in
            try await Self.logOldAndNew(store, count: 200)
            let first = Recorder<[SweepProgress]>([])
            // Holding the first caller's first report keeps its call from returning after its
            // sweep has finished: a sweep asked for meanwhile must run, not return the old report.
            let release = DispatchSemaphore(value: 0)
            let running = Task {
                try await store.sweep { progress in
                    let isFirst = first.update { reports in
                        reports.append(progress)
                        return reports.count == 1
                    }
                    if isFirst { _ = release.wait(timeout: .now() + TimeScale.scaled(30)) }
                }
            }
            do {
                _ = try await watchOnThread(seconds: 30, initial: [0]) { _ in !first.current.isEmpty }
                try await withinTimeLimit(seconds: 30) {
                    while try await store.info().lastSweep == nil { try await Task.sleep(for: .milliseconds(10)) }
                }
                try await onOwnThread {
                    for i in 0..<50 {
                        store.storeMessage(
                            createdAt: Self.now.addingTimeInterval(-6 * 86_400 + Double(i)), label: "old", level: .info,
                            message: "later old message \(i)")
                    }
                }
                try await store.flush()
                let second = Recorder<[SweepProgress]>([])
                let report = try await withinTimeLimit(seconds: 30) {
                    try await store.sweep { progress in second.update { $0.append(progress) } }
                }
                #expect(report.removedMessages == 50)
                #expect(second.current.last?.phase == .finished)
                release.signal()
                let firstReport = try await withinTimeLimit(seconds: 30) { try await running.value }
                #expect(firstReport.removedMessages == 200)
                #expect(first.current.last?.phase == .finished)
            } catch {
                release.signal()
                _ = try? await running.value
                throw error
            }
        }
    }

    @Test func aSweepWithoutACallbackReportsAsBefore() async throws {
        try await withTemporaryStore(configuration: Self.configuration()) { store, _ in
            try await Self.logOldAndNew(store, count: 100)
            let report = try await store.sweep(progress: nil)
            #expect(report.removedMessages == 100)
            #expect(try await store.info().lastSweep == report)
        }
    }
}
