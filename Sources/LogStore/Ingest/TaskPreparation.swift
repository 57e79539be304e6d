import Dispatch
import Foundation
import Synchronization

/// The CPU-heavy part of storing network tasks, done before the batch transaction and spread
/// over the CPUs: redaction, the bodies' SHA-1 keys, the heads' JSON and keys, image sizes, and
/// zlib for the bodies the store does not have yet.
///
/// The writer thread alone hashing, compressing and inserting in series spent ~70 % of its
/// time in SHA-1 and zlib on new 64 KiB bodies; split out, those run on every core and the
/// writer's transaction only looks up keys and inserts.
enum TaskPreparation {
    /// What the writer needs to store one completed task without hashing or compressing.
    struct PreparedTask: Sendable {
        var requestBody: PreparedBlob?
        var responseBody: PreparedBlob?
        var requestHead: PreparedHead?
        var responseHead: PreparedHead?
        var image: ImageSize?
    }

    /// A request or response head as the JSON `task_heads` stores, with its key.
    struct PreparedHead: Sendable {
        var json: String
        var key: SHA1.Digest

        init(json: String) {
            var json = json
            self.key = json.withUTF8 { SHA1.hash(UnsafeRawBufferPointer($0)) }
            self.json = json
        }

        /// The request without its body (the body is a blob of its own).
        init(request: NetworkRequest) { self.init(json: HeadJSON.encode(request)) }

        init(response: NetworkResponse) { self.init(json: HeadJSON.encode(response)) }
    }

    /// Prepares every completed task in `events`, in parallel; `prepared[i]` belongs to
    /// `events[i]` (nil for other events). Bodies over `bodySizeLimit` are not hashed.
    static func prepare(_ events: [LogStore.Event?], bodySizeLimit: Int) -> [PreparedTask?] {
        let indices = events.indices.filter {
            if case .networkTaskCompleted? = events[$0] { return true }
            return false
        }
        let results = concurrently(indices.count) { range in
            range.compactMap { position -> (index: Int, task: PreparedTask)? in
                let index = indices[position]
                guard case .networkTaskCompleted(let task)? = events[index] else { return nil }
                return (index, prepare(task, bodySizeLimit: bodySizeLimit))
            }
        }
        var prepared = [PreparedTask?](repeating: nil, count: events.count)
        for (index, task) in results { prepared[index] = task }
        return prepared
    }

    /// Every body key in `prepared`, each once, in order of first use.
    static func bodyKeys(_ prepared: [PreparedTask?]) -> [SHA1.Digest] {
        var seen: Set<SHA1.Digest> = []
        var keys: [SHA1.Digest] = []
        for case let task? in prepared {
            for case let body? in [task.requestBody, task.responseBody] where seen.insert(body.key).inserted {
                keys.append(body.key)
            }
        }
        return keys
    }

    /// Compresses, in parallel, the bodies whose keys are not in `stored`, each distinct key once.
    static func compressNewBodies(_ prepared: inout [PreparedTask?], stored: Set<SHA1.Digest>, level: Int) {
        var seen = stored
        var work: [(index: Int, isResponse: Bool, data: Data)] = []
        for index in prepared.indices {
            guard let task = prepared[index] else { continue }
            for (isResponse, body) in [(false, task.requestBody), (true, task.responseBody)] {
                guard let body, seen.insert(body.key).inserted else { continue }
                work.append((index, isResponse, body.data))
            }
        }
        let items = work
        let results = concurrently(items.count) { range -> [(position: Int, compressed: [UInt8])] in
            guard let compressor = try? ZlibCompressor(level: level) else { return [] }
            return range.compactMap { position in
                var output: [UInt8] = []
                let isSmaller = (try? items[position].data.withUnsafeBytes {
                    try compressor.compressIfSmaller($0, into: &output)
                }) ?? false
                return isSmaller ? (position, output) : nil
            }
        }
        for (position, compressed) in results {
            let item = items[position]
            if item.isResponse {
                prepared[item.index]?.responseBody?.compressed = compressed
            } else {
                prepared[item.index]?.requestBody?.compressed = compressed
            }
        }
    }

    /// Prepares one task on the calling thread (a retried batch, or a task the parallel stage
    /// did not see); bodies are compressed later by the blob store if new.
    static func prepareHere(_ task: LogStore.Event.NetworkTaskCompleted, bodySizeLimit: Int) -> PreparedTask {
        prepare(task, bodySizeLimit: bodySizeLimit)
    }

    private static func prepare(_ task: LogStore.Event.NetworkTaskCompleted, bodySizeLimit: Int) -> PreparedTask {
        var prepared = PreparedTask()
        if let body = task.requestBody ?? task.request.body, !body.isEmpty, body.count <= bodySizeLimit {
            prepared.requestBody = PreparedBlob(data: body, key: SHA1.hash(body), compressed: nil)
        }
        let responseSize = task.responseBodySize ?? Int64(task.responseBody?.count ?? 0)
        if let body = task.responseBody, !body.isEmpty, responseSize <= Int64(bodySizeLimit) {
            prepared.responseBody = PreparedBlob(data: body, key: SHA1.hash(body), compressed: nil)
            prepared.image = ImageSize.read(body)
        }
        prepared.requestHead = PreparedHead(request: task.request)
        prepared.responseHead = task.response.map { PreparedHead(response: $0) }
        return prepared
    }

    /// Runs `body` over `0..<count` split into one range per CPU (inline when small) and returns
    /// what the ranges produced, in no particular order: each worker hands back its results in
    /// one piece, so there is no per-item locking or hashing.
    private static func concurrently<Result: Sendable>(
        _ count: Int, _ body: @Sendable (Range<Int>) -> [Result]
    ) -> [Result] {
        guard count > 0 else { return [] }
        let workers = min(count, max(1, ProcessInfo.processInfo.activeProcessorCount))
        guard workers > 1 else { return body(0..<count) }
        let parts = Mutex<[[Result]]>([])
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let lower = count * worker / workers
            let upper = count * (worker + 1) / workers
            let part = body(lower..<upper)
            parts.withLock { $0.append(part) }
        }
        return Array(parts.withLock { $0 }.joined())
    }
}
