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
        /// The bodies' sizes (the response's may exceed the bytes kept) and their
        /// ``TaskBodyFlags``, measured once here against the size limit.
        var requestBodySize = 0
        var responseBodySize: Int64 = 0
        var bodyFlags: Int64 = 0
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
    /// The request heads of ``NetworkLogger`` creations are prepared first, into their
    /// ``CreationHead``: a completion in the same batch then finds its creation's head there.
    static func prepare(_ events: [LogStore.Event?], bodySizeLimit: Int) -> [PreparedTask?] {
        prepareCreationHeads(events)
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

    /// Encodes and hashes, in parallel, the request heads of the creations that share a
    /// ``CreationHead`` with their completion, so the writer's transaction only links them.
    static func prepareCreationHeads(_ events: [LogStore.Event?]) {
        let indices = events.indices.filter {
            if case .networkTaskCreated(let created)? = events[$0], created.creationHead.head != nil { return true }
            return false
        }
        _ = concurrently(indices.count) { range -> [Void] in
            for position in range {
                guard case .networkTaskCreated(let created)? = events[indices[position]] else { continue }
                _ = created.creationHead.head?.head(forCreation: created.request)
            }
            return []
        }
    }

    /// Redacts the network events of `events` in place, in parallel: on a busy store their bodies'
    /// JSON scan was a quarter of the preparation, and ran on one thread while the writer waited
    /// for it.
    static func redactNetworkEvents(_ events: inout [LogStore.Event?], with redaction: Redaction) {
        let indices = events.indices.filter { events[$0]?.isNetworkEvent == true }
        guard !indices.isEmpty else { return }
        // Read through a borrowed copy that ends with the call, so the writes below find the
        // array unshared and change it in place.
        for (index, event) in redacted(events, at: indices, with: redaction) { events[index] = event }
    }

    private static func redacted(
        _ events: [LogStore.Event?], at indices: [Int], with redaction: Redaction
    ) -> [(index: Int, event: LogStore.Event)] {
        concurrently(indices.count) { range in
            range.compactMap { position in
                let index = indices[position]
                return events[index].map { (index, redaction.redact($0)) }
            }
        }
    }

    /// Every body key in `prepared`, each once, in order of first use.
    static func bodyKeys(_ prepared: [PreparedTask?]) -> [SHA1.Digest] {
        var seen: Set<SHA1.Digest> = []
        var keys: [SHA1.Digest] = []
        // Only the keys are read, in place: copying each task (its bodies, heads and strings)
        // and an array of its two bodies retained and released a dozen objects a task.
        for index in prepared.indices {
            if let key = prepared[index]?.requestBody?.key, seen.insert(key).inserted { keys.append(key) }
            if let key = prepared[index]?.responseBody?.key, seen.insert(key).inserted { keys.append(key) }
        }
        return keys
    }

    /// Compresses, in parallel, the bodies whose keys are not in `stored`, each distinct key once.
    /// Each of those comes out ``PreparedBlob/Compression/zlib(_:)`` or
    /// ``PreparedBlob/Compression/incompressible`` (so the writer does not try again), or stays
    /// ``PreparedBlob/Compression/untried`` when zlib failed (the writer then reports it).
    static func compressNewBodies(_ prepared: inout [PreparedTask?], stored: Set<SHA1.Digest>, level: Int) {
        var seen = stored
        var work: [(index: Int, isResponse: Bool, data: Data)] = []
        // Each body is read in place (see ``bodyKeys(_:)``); one known to be compressed already
        // (by its type) is not tried.
        func consider(_ body: PreparedBlob?, of index: Int, isResponse: Bool) {
            guard let body, case .untried = body.compression, seen.insert(body.key).inserted else { return }
            work.append((index, isResponse, body.data))
        }
        for index in prepared.indices where prepared[index] != nil {
            consider(prepared[index]?.requestBody, of: index, isResponse: false)
            consider(prepared[index]?.responseBody, of: index, isResponse: true)
        }
        let items = work
        let results = concurrently(items.count) { range -> [(position: Int, compression: PreparedBlob.Compression)] in
            guard let compressor = try? ZlibCompressor(level: level) else { return [] }
            var output: [UInt8] = []
            return range.compactMap { position in
                do {
                    let isSmaller = try items[position].data.withUnsafeBytes { bytes in
                        guard !Compressibility.looksCompressed(bytes) else { return false }
                        return try compressor.compressIfSmaller(bytes, into: &output)
                    }
                    return (position, isSmaller ? .zlib(output) : .incompressible)
                } catch {
                    return nil  // left untried: the writer compresses it and reports the failure
                }
            }
        }
        for (position, compression) in results {
            let item = items[position]
            if item.isResponse {
                prepared[item.index]?.responseBody?.compression = compression
            } else {
                prepared[item.index]?.requestBody?.compression = compression
            }
        }
        // A body whose key repeats in this batch was compressed once, for its first use; the
        // writer stores it then, and links the later uses.
    }

    /// Prepares one task on the calling thread (a retried batch, or a task the parallel stage
    /// did not see); bodies are compressed later by the blob store if new.
    static func prepareHere(_ task: LogStore.Event.NetworkTaskCompleted, bodySizeLimit: Int) -> PreparedTask {
        prepare(task, bodySizeLimit: bodySizeLimit)
    }

    private static func prepare(_ task: LogStore.Event.NetworkTaskCompleted, bodySizeLimit: Int) -> PreparedTask {
        var prepared = PreparedTask()
        if let body = task.requestBody ?? task.request.body {
            prepared.requestBodySize = body.count
            if body.count > bodySizeLimit {
                prepared.bodyFlags |= TaskBodyFlags.requestBodyOverLimit
            } else if !body.isEmpty {
                prepared.requestBody = blob(body, headers: task.request.headers, essence: task.request.contentType)
            }
        }
        prepared.responseBodySize = task.responseBodySize ?? Int64(task.responseBody?.count ?? 0)
        if prepared.responseBodySize > Int64(bodySizeLimit) {
            prepared.bodyFlags |= TaskBodyFlags.responseBodyOverLimit
        } else if let body = task.responseBody, !body.isEmpty {
            prepared.responseBody = blob(
                body, headers: task.response?.headers ?? [:], essence: task.response?.contentType)
            prepared.image = ImageSize.read(body)
        }
        // The usual NetworkLogger completion carries its creation's request: its head is the
        // one the creation prepared, and is neither encoded nor hashed again.
        prepared.requestHead = task.creationHead.head?.head(matching: task.request)
            ?? PreparedHead(request: task.request)
        prepared.responseHead = task.response.map { PreparedHead(response: $0) }
        return prepared
    }

    /// A body with its key; one whose type says it is compressed already is marked so, and
    /// nothing tries to compress it.
    private static func blob(_ body: Data, headers: [String: String], essence: String?) -> PreparedBlob {
        let isCompressed = Compressibility.isCompressed(
            essence: essence, encoding: headers.httpHeaderValue("Content-Encoding"))
        return PreparedBlob(data: body, key: SHA1.hash(body), compression: isCompressed ? .incompressible : .untried)
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
