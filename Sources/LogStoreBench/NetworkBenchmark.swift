import Foundation
import LogStore

/// `network.tasks_per_s`: complete tasks (a POST with a 2 KiB JSON body and headers, a 200 with a
/// different 2 KiB JSON body; half the bodies repeat) from 4 concurrent tasks through
/// `storeRequest`, until `flush()`, on a new store.
struct NetworkBenchmark {
    let quick: Bool
    let directory: URL

    /// Complete network tasks with 2 KiB bodies.
    var networkTasks: Int { quick ? 50_000 : 200_000 }
    static let networkProducers = 4
    /// The issue's target for complete tasks.
    static let targetTasksPerSecond = 20_000.0

    func run() async throws -> [Figure] { [try await completeTasks()] }

    private func completeTasks() async throws -> Figure {
        let bodies = NetworkBodies()
        for seed: UInt64 in [0, 12_345] {
            for body in [bodies.request.make(seed: seed), bodies.response.make(seed: seed)] {
                guard body.count == NetworkBodies.size, (try? JSONSerialization.jsonObject(with: body)) != nil else {
                    throw BenchError.failed("network body (seed \(seed)) is not \(NetworkBodies.size) bytes of JSON")
                }
            }
        }
        let url = directory.appendingPathComponent("network.logstore")
        let store = try await BenchStore.open(at: url)
        let count = networkTasks
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
                "network: \(info.taskCount) of \(count) tasks, \(info.blobCount - before.blobCount) of "
                    + "\(expectedBlobs) blobs, dropped \(info.droppedEventCount)")
        }
        let rate = Double(count) / seconds
        print(
            "network: \(count) tasks (POST, \(NetworkBodies.size)-byte JSON request and response bodies, half "
                + "repeated: \(expectedBlobs) distinct) from \(Self.networkProducers) tasks in "
                + String(format: "%.2f s", seconds) + ", \(FigureReport.format(rate)) tasks/s, "
                + String(format: "%.0f", cpuMicroseconds) + " µs CPU per task (all threads); bodies stored at ratio "
                + String(format: "%.2f", Double(info.blobsDecompressedSize) / Double(max(1, info.blobsSize)))
                + ", database \(info.databaseSize / 1_000_000) MB (\(info.databaseSize / Int64(count)) bytes per task)")
        return Figure(
            name: "network.tasks_per_s", value: rate, baseline: Self.targetTasksPerSecond, unit: "tasks/s",
            baselineDescription: "the issue's target (20,000 tasks/s); ours: `storeRequest` with 2 KiB JSON request "
                + "and response bodies (half repeated), 4 producers, until `flush()`",
            target: "≥ 1.0")
    }

}


/// The 2 KiB JSON bodies of `network.tasks_per_s`: an order as an app POSTs it and the order the
/// API returns, each exactly ``size`` bytes. Ids, UUIDs, tokens, timestamps, amounts and
/// quantities vary with a seed; field names and the other values repeat, as in real traffic.
///
/// Task `i` with `i` even uses one of ``pool`` seeds (repeated bodies, so deduplicated), with `i`
/// odd a seed of its own, for request and response alike.
struct NetworkBodies: Sendable {
    static let size = 2048
    static let pool = 32
    let request: BodyTemplate
    let response: BodyTemplate
    let url = URL(string: "https://api.example.com/v2/orders")

    init() {
        request = Self.requestTemplate()
        response = Self.responseTemplate()
    }

    /// How many distinct bodies `tasks` tasks store.
    static func distinctBodies(tasks: Int) -> Int {
        let even = (tasks + 1) / 2
        return 2 * (min(pool, even) + tasks / 2)
    }

    /// Builds and stores task `index`: its bodies and headers are made here, on the caller's
    /// thread, as an app's would be. `responseBody`, when given, replaces the JSON response
    /// (sent as `application/octet-stream`).
    func store(task index: Int, into store: LogStore, responseBody: Data? = nil) {
        let seed = index % 2 == 0 ? UInt64((index / 2) % Self.pool) : 1_000_000 + UInt64(index)
        let requestID = BodyTemplate.hex(BenchRow.splitmix64(UInt64(index) ^ 0xF00D), digits: 16)
        let request = NetworkRequest(
            url: url, method: "POST",
            headers: [
                "Content-Type": "application/json", "Accept": "application/json",
                "Authorization": "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJl",
                "User-Agent": "ShopApp/5.13.0 (Linux)", "X-Request-ID": requestID,
                "Content-Length": String(Self.size),
            ],
            body: self.request.make(seed: seed))
        let response = NetworkResponse(
            url: url, statusCode: 200,
            headers: [
                "Content-Type": responseBody == nil ? "application/json; charset=utf-8" : "application/octet-stream",
                "X-Request-ID": requestID, "Cache-Control": "no-store",
                "Content-Length": String(responseBody?.count ?? Self.size), "Server": "nginx",
                "Date": "Tue, 14 Oct 2025 09:12:44 GMT",
            ])
        store.storeRequest(request, response: response, error: nil, data: responseBody ?? self.response.make(seed: seed))
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