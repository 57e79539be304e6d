import Foundation
import Glibc

/// Clocks and process figures for the benchmark.
enum Measure {
    /// Monotonic nanoseconds.
    @inline(__always)
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func seconds(since start: UInt64) -> Double {
        Double(now() - start) / 1e9
    }

    static func milliseconds(since start: UInt64) -> Double {
        Double(now() - start) / 1e6
    }

    /// CPU time (user and system) of every thread of the process so far, in seconds.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Bytes a store takes on disk: the blocks allocated (`st_blocks` × 512) to the regular files
    /// in `directory` and in its `blobs/` subdirectory. Files that vanish while it looks (a sweep
    /// deleting blobs) count as gone.
    static func allocatedBytes(ofStoreAt directory: URL) -> Int64 {
        allocatedBytes(inDirectory: directory.path) + allocatedBytes(inDirectory: directory.path + "/blobs")
    }

    /// The blocks allocated to one file (0 when it does not exist).
    static func allocatedBytes(ofFile path: String) -> Int64 {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return Int64(info.st_blocks) * 512
    }

    /// The bytes of one file (`st_size`; 0 when it does not exist): what a copy of it would
    /// take, where ``allocatedBytes(ofFile:)`` counts the blocks the file system gave it.
    static func fileBytes(_ path: String) -> Int64 {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }

    /// The regular files of one directory (not recursive), by `st_blocks`.
    static func allocatedBytes(inDirectory path: String) -> Int64 {
        guard let handle = opendir(path) else { return 0 }
        defer { closedir(handle) }
        let descriptor = dirfd(handle)
        var total: Int64 = 0
        while let entry = readdir(handle) {
            var info = stat()
            let found = withUnsafePointer(to: entry.pointee.d_name) { name in
                name.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) {
                    fstatat(descriptor, $0, &info, AT_SYMLINK_NOFOLLOW) == 0
                }
            }
            guard found, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            total += Int64(info.st_blocks) * 512
        }
        return total
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[sorted.count / 2]
    }

    static func percentile(_ sorted: [UInt32], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, Int(Double(sorted.count) * fraction))
        return Double(sorted[index])
    }

    /// Runs `body` `repeats` times and returns the median in milliseconds.
    static func medianMilliseconds(repeats: Int, _ body: () async throws -> Void) async rethrows -> Double {
        var samples: [Double] = []
        for _ in 0..<repeats {
            let start = now()
            try await body()
            samples.append(milliseconds(since: start))
        }
        return median(samples)
    }
}
