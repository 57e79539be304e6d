import Foundation

/// A store's size on disk (``Measure/allocatedBytes(ofStoreAt:)``: the database, its `-wal` and
/// `-shm`, the other files of the directory and the body files in `blobs/`) sampled every
/// ``interval`` while a sweep runs, for the largest the store gets.
///
/// Sampling is `stat` calls only: nothing reaches the store's connections, so the writer does no
/// work for it. It runs on a thread of its own (one of ``ProducerThreads``), not in a task: the
/// sweep and ``CommitWatch`` share the cooperative pool's two threads, and samples taken whenever
/// the pool got round to them would miss short peaks.
enum DiskSizeWatch {
    static let interval = 0.025

    /// One sample: when (``Measure/now()``), the store's bytes, and its WAL's alone.
    struct Sample: Sendable {
        var time: UInt64
        var bytes: Int64
        var walBytes: Int64

        /// Takes one now, on the caller's thread.
        init(of store: URL) {
            time = Measure.now()
            bytes = Measure.allocatedBytes(ofStoreAt: store)
            walBytes = Measure.allocatedBytes(ofFile: store.path + "/logs.sqlite-wal")
        }
    }

    /// What the samples between two taken by the caller (`before` and `after`, included) show.
    struct Window {
        var before: Sample
        var after: Sample
        var peak: Sample
        var largestWAL: Int64
        var count: Int
        /// The longest time between two consecutive samples: the resolution of ``peak``.
        var longestIntervalMilliseconds: Double

        /// The peak as a multiple of the size before.
        var peakRatio: Double { Double(peak.bytes) / Double(max(1, before.bytes)) }
        /// When the peak was, in seconds after `before`.
        var peakSeconds: Double { Double(peak.time - before.time) / 1e9 }
    }

    /// The running watch: ``stop(before:after:)`` ends it.
    struct Running {
        let thread: ProducerThreads<[Sample]>

        /// Stops the thread and keeps its samples from `before` to `after`.
        func stop(before: Sample, after: Sample) async -> Window {
            let taken = await thread.stop().first ?? []
            let samples = [before] + taken.filter { $0.time > before.time && $0.time < after.time } + [after]
            let peak = samples.max { $0.bytes < $1.bytes } ?? before
            var longest: UInt64 = 0
            for (earlier, later) in zip(samples, samples.dropFirst()) {
                longest = max(longest, later.time - earlier.time)
            }
            return Window(
                before: before, after: after, peak: peak, largestWAL: samples.map(\.walBytes).max() ?? 0,
                count: samples.count, longestIntervalMilliseconds: Double(longest) / 1e6)
        }
    }

    /// Starts sampling the store at `store` (its directory).
    static func start(_ store: URL) -> Running {
        Running(thread: ProducerThreads<[Sample]>.start(count: 1, name: "size-watch") { _, control in
            var samples: [Sample] = []
            while !control.isStopped {
                samples.append(Sample(of: store))
                Thread.sleep(forTimeInterval: interval)
            }
            return samples
        })
    }
}
