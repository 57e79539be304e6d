import Foundation
import LogStore
import Testing

/// A small size limit holds while logging runs at full speed: the size check, the size sweep's
/// rounds and what it judges keep up with a store that turns over in a fraction of a second.
@Suite("Small size limit")
struct SmallSizeLimitTests {
    static let sizeLimit: Int64 = 4_000_000

    /// Bytes of the database, its WAL and the blob files.
    static func onDisk(_ url: URL) -> Int64 {
        var total: Int64 = 0
        let files = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey])
        while let file = files?.nextObject() as? URL {
            guard file.lastPathComponent.hasPrefix("logs.sqlite") || file.deletingLastPathComponent().lastPathComponent == "blobs"
            else { continue }
            total += Int64((try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
        }
        return total
    }

    /// Two threads (`.waitForSpace` blocks: not on the test's cooperative threads) log messages
    /// and tasks with distinct 2 KiB bodies until `stop` is set.
    static func startProducers(_ store: LogStore, stop: Recorder<Bool>, finished: Recorder<Int>) {
        for producer in 0..<2 {
            Thread {
                var i = 0
                while !stop.current {
                    store.storeMessage(label: "load", level: .info, message: "message \(producer) \(i) of the small-limit test")
                    if i.isMultiple(of: 8) {
                        let body = Data(String(repeating: "\(producer)-\(i)-", count: 2_048 / 8).utf8)
                        store.storeRequest(
                            NetworkRequest(url: URL(string: "https://example.com/\(i)")),
                            response: NetworkResponse(statusCode: 200), error: nil, data: body)
                    }
                    i += 1
                }
                finished.update { $0 += 1 }
            }.start()
        }
    }

    @Test func aSmallLimitHoldsUnderFullSpeedLogging() async throws {
        var configuration = LogStore.Configuration()
        configuration.sizeLimit = Self.sizeLimit
        configuration.overflowPolicy = .waitForSpace
        // A short queue: closing drains it quickly.
        configuration.maxPendingEvents = 2_000
        try await withTemporaryStore(options: [.create, .sweep], configuration: configuration) { store, url in
            let stop = Recorder(false)
            let finished = Recorder(0)
            Self.startProducers(store, stop: stop, finished: finished)
            var peak: Int64 = 0
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .milliseconds(800) {
                peak = max(peak, Self.onDisk(url))
                try await Task.sleep(for: .milliseconds(10))
            }
            stop.update { $0 = true }
            let deadline = ContinuousClock.now + .seconds(TimeScale.scaled(10))
            while finished.current < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(finished.current == 2, "the producers stopped")
            let info = try await store.info()
            #expect(info.messageCount > 0 && info.droppedEventCount == 0)
            let ratio = Double(peak) / Double(Self.sizeLimit)
            #expect(ratio <= 1.25, "peaked at \(ratio) × the limit")
        }
    }
}
