import Foundation
@_spi(Benchmark) import LogStore

/// The network figures: complete tasks (a POST with a body and headers, a 200 with a different
/// body; half the bodies repeat) from 4 concurrent tasks through `storeRequest`, until `flush()`,
/// on a new store, beside the naive C pipeline (`lsb_network_naive`, in a child process) storing
/// exactly the same bodies and heads.
///
/// - `network.tasks_per_s` and `network.cpu_us_per_task`: 2 KiB JSON bodies.
/// - `network.binary_tasks_per_s`: 16 KiB random bodies (`image/png`), which do not compress.
struct NetworkBenchmark {
    let quick: Bool
    let directory: URL

    /// Complete network tasks with 2 KiB JSON bodies.
    var networkTasks: Int { quick ? 50_000 : 200_000 }
    /// Complete tasks with 16 KiB bodies: fewer, as each new one adds 32 KiB to the database.
    var binaryTasks: Int { quick ? 10_000 : 40_000 }
    static let networkProducers = 4

    func run() async throws -> [Figure] {
        let json = NetworkBodies()
        try NetworkWorkload.checkJSON(json)
        let ours = try await measureStore(json, tasks: networkTasks)
        let baseline = try measureBaseline(json, tasks: networkTasks)
        let binary = NetworkBodies(binary: true)
        let oursBinary = try await measureStore(binary, tasks: binaryTasks)
        let baselineBinary = try measureBaseline(binary, tasks: binaryTasks)
        let pipeline = "the naive C pipeline (one thread: portable SHA-1, key lookup, `compress2` at the "
            + "store's level for new bodies, blob, task and message rows, 10k tasks per "
            + "transaction) on the same bodies and heads"
        return [
            Figure(
                name: "network.tasks_per_s", value: ours.rate, baseline: baseline.rate, unit: "tasks/s",
                baselineDescription: pipeline + "; ours: `storeRequest` with 2 KiB JSON request and response "
                    + "bodies (half repeated), 4 producers, until `flush()`",
                target: "≥ 1.0 (aim ≥ 1.5)"),
            Figure(
                name: "network.cpu_us_per_task", value: ours.cpuMicroseconds, baseline: baseline.cpuMicroseconds,
                unit: "µs", baselineDescription: "the same pipeline's CPU per task; ours: all threads of the "
                    + "process (getrusage) over the measured phase, the producers' building of bodies included",
                target: "≤ 1.0"),
            Figure(
                name: "network.binary_tasks_per_s", value: oursBinary.rate, baseline: baselineBinary.rate,
                unit: "tasks/s", baselineDescription: pipeline + ", with 16 KiB random `image/png` bodies",
                target: "≥ 1.0"),
        ]
    }

    /// One side's result: tasks per second and CPU microseconds per task.
    struct Result {
        var rate: Double
        var cpuMicroseconds: Double
    }

    private func measureStore(_ bodies: NetworkBodies, tasks count: Int) async throws -> Result {
        let url = directory.appendingPathComponent("network-\(bodies.kind).logstore")
        let store = try await BenchStore.open(at: url)
        let before = try await store.info()
        sync()
        let start = Measure.now()
        let startCPU = Measure.processCPUSeconds()
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<Self.networkProducers {
                group.addTask {
                    var index = producer
                    while index < count {
                        bodies.store(task: index, into: store)
                        index += Self.networkProducers
                    }
                }
            }
        }
        try await store.flush()
        let seconds = Measure.seconds(since: start)
        let cpuMicroseconds = (Measure.processCPUSeconds() - startCPU) * 1e6 / Double(count)
        let info = try await store.info()
        try await BenchStore.closeAndDelete(store, at: url)
        let expectedBlobs = NetworkBodies.distinctBodies(tasks: count)
        guard info.droppedEventCount == 0, info.taskCount == count,
            info.blobCount - before.blobCount == expectedBlobs
        else {
            throw BenchError.failed(
                "network (\(bodies.kind)): \(info.taskCount) of \(count) tasks, \(info.blobCount - before.blobCount) "
                    + "of \(expectedBlobs) blobs, dropped \(info.droppedEventCount)")
        }
        let rate = Double(count) / seconds
        print(
            "network (\(bodies.kind)): \(count) tasks (POST, \(bodies.bodySize)-byte \(bodies.contentType) request and "
                + "response bodies, half repeated: \(expectedBlobs) distinct) from \(Self.networkProducers) tasks in "
                + String(format: "%.2f s", seconds) + ", \(FigureReport.format(rate)) tasks/s, "
                + String(format: "%.0f", cpuMicroseconds) + " µs CPU per task (all threads); bodies stored at ratio "
                + String(format: "%.2f", Double(info.blobsDecompressedSize) / Double(max(1, info.blobsSize)))
                + ", database \(info.databaseSize / 1_000_000) MB (\(info.databaseSize / Int64(count)) bytes per task)")
        return Result(rate: rate, cpuMicroseconds: cpuMicroseconds)
    }

    /// The naive C pipeline on the same tasks, in a child process, after checking that the
    /// child's bodies, heads and SHA-1 are the ones this process stores.
    private func measureBaseline(_ bodies: NetworkBodies, tasks count: Int) throws -> Result {
        let workload = directory.appendingPathComponent("network-\(bodies.kind).workload")
        let database = directory.appendingPathComponent("network-\(bodies.kind)-naive.sqlite")
        let level = try LogStore.BlobCompressor().level
        try NetworkWorkload(bodies: bodies).write(to: workload)
        try NetworkWorkload.verify(workload, against: bodies)
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
            try? FileManager.default.removeItem(at: workload)
        }
        let result = try CBaselineProcess.network(
            tasks: count, level: level, workload: workload.path, path: database.path)
        let expectedBlobs = NetworkBodies.distinctBodies(tasks: count)
        guard result.blobs == expectedBlobs else {
            throw BenchError.failed("network C pipeline (\(bodies.kind)): \(result.blobs) of \(expectedBlobs) blobs")
        }
        let rate = Double(count) / result.seconds
        let cpuMicroseconds = result.cpuSeconds * 1e6 / Double(count)
        print(
            "network (\(bodies.kind)), naive C pipeline: \(count) tasks in " + String(format: "%.2f s", result.seconds)
                + ", \(FigureReport.format(rate)) tasks/s, " + String(format: "%.0f", cpuMicroseconds)
                + " µs CPU per task")
        return Result(rate: rate, cpuMicroseconds: cpuMicroseconds)
    }
}


/// The bodies of the network figures: by default 2 KiB JSON, an order as an app POSTs it and the
/// order the API returns, each exactly ``size`` bytes (ids, UUIDs, tokens, timestamps, amounts and
/// quantities vary with a seed; field names and the other values repeat, as in real traffic);
/// with `binary`, ``binarySize`` random bytes each way, sent as `image/png`.
///
/// Task `i` with `i` even uses one of ``pool`` seeds (repeated bodies, so deduplicated), with `i`
/// odd the seed ``seedBase`` + `i`, for request and response alike.
struct NetworkBodies: Sendable {
    static let size = 2048
    static let binarySize = 16 * 1024
    static let pool = 32
    static let seedBase: UInt64 = 1_000_000
    let request: BodyTemplate
    let response: BodyTemplate
    /// `json` or `binary`, for file names and messages.
    let kind: String
    /// Bytes of each body.
    let bodySize: Int
    /// The bodies' `Content-Type`.
    let contentType: String
    /// XORed into the seed of the response body: the binary bodies share one template, and
    /// without it a task's request and response would be the same bytes.
    let responseSalt: UInt64
    let url = URL(string: "https://api.example.com/v2/orders")
    static let method = "POST"
    static let statusCode = 200

    init(binary: Bool = false) {
        if binary {
            var random = BodyTemplate()
            random.random(Self.binarySize)
            (request, response, kind, bodySize, contentType) = (random, random, "binary", Self.binarySize, "image/png")
            responseSalt = 0x5EED_0F_1A7E
        } else {
            (request, response, kind, bodySize) = (Self.requestTemplate(), Self.responseTemplate(), "json", Self.size)
            (contentType, responseSalt) = ("application/json", 0)
        }
    }

    /// How many distinct bodies `tasks` tasks store.
    static func distinctBodies(tasks: Int) -> Int {
        let even = (tasks + 1) / 2
        return 2 * (min(pool, even) + tasks / 2)
    }

    /// The seed of task `index`'s bodies.
    static func seed(task index: Int) -> UInt64 {
        index % 2 == 0 ? UInt64((index / 2) % pool) : seedBase + UInt64(index)
    }

    /// Task `index`'s `X-Request-ID`.
    static func requestID(task index: Int) -> String {
        BodyTemplate.hex(BenchRow.splitmix64(UInt64(index) ^ 0xF00D), digits: 16)
    }

    func requestHeaders(requestID: String) -> [String: String] {
        [
            "Content-Type": contentType, "Accept": contentType,
            "Authorization": "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJl",
            "User-Agent": "ShopApp/5.13.0 (Linux)", "X-Request-ID": requestID,
            "Content-Length": String(bodySize),
        ]
    }

    func responseHeaders(requestID: String, responseBody: Data? = nil) -> [String: String] {
        [
            "Content-Type": responseBody == nil
                ? (contentType == "application/json" ? "application/json; charset=utf-8" : contentType)
                : "application/octet-stream",
            "X-Request-ID": requestID, "Cache-Control": "no-store",
            "Content-Length": String(responseBody?.count ?? bodySize), "Server": "nginx",
            "Date": "Tue, 14 Oct 2025 09:12:44 GMT",
        ]
    }

    /// Builds and stores task `index`: its bodies and headers are made here, on the caller's
    /// thread, as an app's would be. `responseBody`, when given, replaces the response body
    /// (sent as `application/octet-stream`); `metrics`, when given, makes the task's metrics
    /// from its request and response.
    func store(
        task index: Int, into store: LogStore, responseBody: Data? = nil,
        metrics: ((NetworkRequest, NetworkResponse) -> NetworkMetrics)? = nil
    ) {
        let seed = Self.seed(task: index)
        let requestID = Self.requestID(task: index)
        let request = NetworkRequest(
            url: url, method: Self.method, headers: requestHeaders(requestID: requestID),
            body: self.request.make(seed: seed))
        let response = NetworkResponse(
            url: url, statusCode: Self.statusCode, headers: responseHeaders(requestID: requestID, responseBody: responseBody))
        store.storeRequest(
            request, response: response, error: nil, data: responseBody ?? self.response.make(seed: seed ^ responseSalt),
            metrics: metrics?(request, response))
    }

    private static func requestTemplate() -> BodyTemplate {
        var head = BodyTemplate()
        head.text(#"{"order":{"external_id":"ORD-"#)
        head.decimal(10)
        head.text(#"","idempotency_key":""#)
        head.uuid()
        head.text(#"","created_at":""#)
        head.timestamp()
        head.text(#"","customer":{"id":"#)
        head.decimal(7)
        head.text(#","email":"customer."#)
        head.decimal(7)
        head.text(#"@example.com","name":"Ada Lovelace","phone":"+49 "#)
        head.decimal(3)
        head.text(" ")
        head.decimal(7)
        head.text(#"","locale":"de-DE","is_vip":false,"marketing_opt_in":true},"items":["#)
        var tail = BodyTemplate()
        tail.text(#"],"shipping_address":"#)
        address(&tail)
        tail.text(#","billing_address":"#)
        address(&tail)
        tail.text(#","payment":{"method":"card","brand":"visa","token":"tok_"#)
        tail.hex(24)
        tail.text(#"","save_card":true},"shipping":{"carrier":"dhl","service":"express"},"coupon_code":null,"#)
        tail.text(#""metadata":{"source":"ios","app_version":"5.13.0","session_id":""#)
        tail.hex(24)
        tail.text(#"","client_ip":"10."#)
        tail.decimal(2)
        tail.text(".")
        tail.decimal(2)
        tail.text(".")
        tail.decimal(2)
        tail.text(#""},"notes":""#)
        return fill(head: head, tail: tail, closing: #""}}"#) { item, index in
            if index > 0 { item.text(",") }
            item.text(#"{"sku":"SKU-"#)
            item.decimal(5)
            item.text(#"","name":""#)
            item.text(products[index % products.count])
            item.text(#"","quantity":"#)
            item.decimal(1)
            item.text(#","unit_price":""#)
            item.decimal(2)
            item.text(".")
            item.decimal(2)
            item.text(#"","currency":"EUR","tax_rate":"0.19","gift_wrap":false}"#)
        }
    }

    private static func responseTemplate() -> BodyTemplate {
        var head = BodyTemplate()
        head.text(#"{"id":"#)
        head.decimal(9)
        head.text(#","object":"order","status":"pending","external_id":"ORD-"#)
        head.decimal(10)
        head.text(#"","created_at":""#)
        head.timestamp()
        head.text(#"","updated_at":""#)
        head.timestamp()
        head.text(#"","livemode":true,"customer":{"id":"cus_"#)
        head.hex(14)
        head.text(#"","object":"customer","email":"customer."#)
        head.decimal(7)
        head.text(#"@example.com"},"lines":{"object":"list","data":["#)
        var tail = BodyTemplate()
        tail.text(#"],"has_more":false},"amount_subtotal":"#)
        tail.decimal(5)
        tail.text(#","amount_tax":"#)
        tail.decimal(4)
        tail.text(#","amount_shipping":495,"amount_total":"#)
        tail.decimal(5)
        tail.text(#","currency":"eur","payment_intent":{"id":"pi_"#)
        tail.hex(24)
        tail.text(#"","status":"requires_capture","client_secret":"pi_"#)
        tail.hex(24)
        tail.text(#"_secret_"#)
        tail.hex(16)
        tail.text(#""},"shipping":{"carrier":"dhl","service":"express","estimated_delivery":""#)
        tail.timestamp()
        tail.text(#"","tracking_number":null},"links":{"self":"https://api.example.com/v2/orders/"#)
        tail.decimal(9)
        tail.text(#"","customer":"https://api.example.com/v2/customers/cus_"#)
        tail.hex(14)
        tail.text(#""},"request_id":"req_"#)
        tail.hex(16)
        tail.text(#"","message":""#)
        return fill(head: head, tail: tail, closing: #""}"#) { item, index in
            if index > 0 { item.text(",") }
            item.text(#"{"id":"li_"#)
            item.hex(16)
            item.text(#"","object":"line_item","sku":"SKU-"#)
            item.decimal(5)
            item.text(#"","description":""#)
            item.text(products[index % products.count])
            item.text(#"","quantity":"#)
            item.decimal(1)
            item.text(#","amount":"#)
            item.decimal(4)
            item.text(#","tax_amount":"#)
            item.decimal(3)
            item.text(#","currency":"eur"}"#)
        }
    }

    private static func address(_ template: inout BodyTemplate) {
        template.text(#"{"name":"Ada Lovelace","street":""#)
        template.decimal(3)
        template.text(#" Station Road","city":"Berlin","postal_code":""#)
        template.decimal(5)
        template.text(#"","country":"DE"}"#)
    }

    /// `head`, as many items as fit, `tail`, a text value padding the body to ``size`` bytes
    /// (at least 40 characters of it), then `closing`.
    private static func fill(
        head: BodyTemplate, tail: BodyTemplate, closing: String, item: (inout BodyTemplate, Int) -> Void
    ) -> BodyTemplate {
        var body = head
        var index = 0
        while true {
            var trial = body
            item(&trial, index)
            guard trial.bytes.count + tail.bytes.count + closing.utf8.count + 40 <= size else { break }
            body = trial
            index += 1
        }
        body.append(tail)
        let room = size - body.bytes.count - closing.utf8.count
        var padding = ""
        var word = 0
        while padding.utf8.count < room {
            padding += (padding.isEmpty ? "" : " ") + words[word % words.count]
            word += 1
        }
        body.text(String(padding.prefix(room)))
        body.text(closing)
        precondition(body.bytes.count == size)
        return body
    }

    private static let products = [
        "USB-C cable 2 m", "Wireless mouse", "Mechanical keyboard", "Laptop stand", "Webcam 1080p", "Desk lamp",
    ]
    private static let words = [
        "Please", "leave", "the", "parcel", "at", "the", "front", "door", "or", "with", "a", "neighbour", "if",
        "nobody", "is", "home", "and", "ring", "twice", "before", "leaving",
    ]
}