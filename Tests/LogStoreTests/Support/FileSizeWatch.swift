import Foundation
import Glibc
import Synchronization

/// Samples a file's size every millisecond while a body runs, and keeps the largest.
final class FileSizeWatch: Sendable {
    private let url: URL
    private let largestSeen = Atomic<Int64>(0)
    private let isDone = Atomic(false)

    init(_ url: URL) { self.url = url }

    var largest: Int64 { largestSeen.load(ordering: .acquiring) }

    func whileWatching(_ body: () async throws -> Void) async throws {
        let sampler = Thread { [self] in
            while !isDone.load(ordering: .acquiring) {
                largestSeen.max(Self.size(of: url), ordering: .acquiringAndReleasing)
                usleep(1_000)
            }
        }
        sampler.start()
        defer {
            isDone.store(true, ordering: .releasing)
            // The size as the body left it, whatever the sampler's timing.
            largestSeen.max(Self.size(of: url), ordering: .acquiringAndReleasing)
        }
        try await body()
    }

    /// A file's size in bytes; 0 when there is none.
    static func size(of url: URL) -> Int64 {
        var info = stat()
        return stat(url.path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
