import Foundation
import Synchronization

/// ClickHouse as a shipper's destination: creates the tables when missing, and inserts each
/// request's rows as `RowBinary`, one insert per table, into the first server of the list that
/// answers (a failing one is left for the next, and tried again when the others fail).
final class ClickHouseShipping: ShippingDestination {
    private let destination: ClickHouseDestination
    private let poster: HTTPPoster
    /// The server requests go to now (an index into `destination.urls`).
    private let current = Mutex(0)
    /// The servers whose tables could not be made (they were down), and the background
    /// attempt at making them.
    private let lateServers = Mutex<(missing: [Int: String], lastTry: ContinuousClock.Instant?, isTrying: Bool)>(([:], nil, false))
    /// The servers whose last request got no answer at all (refused, timed out).
    private let silentServers = Mutex<Set<Int>>([])

    init(_ destination: ClickHouseDestination, timeout: Duration) {
        self.destination = destination
        poster = HTTPPoster(timeout: timeout)
    }

    func prepare() async throws(ShippingFailure) {
        // Every server gets its tables: in a cluster each replica has its own local table.
        var lastFailure: ShippingFailure?
        var missing: [Int: String] = [:]
        for index in destination.urls.indices {
            do {
                try await createTables(on: index)
            } catch {
                lastFailure = error
                missing[index] = error.description
            }
        }
        lateServers.withLock { $0.missing = missing }
        if missing.count == destination.urls.count, let lastFailure { throw lastFailure }
    }

    private func createTables(on index: Int) async throws(ShippingFailure) {
        for table in ClickHouseSchema.all {
            for statement in ClickHouseSchema.createStatements(table, database: destination.database, cluster: destination.cluster) {
                do {
                    try await run(statement, on: index)
                } catch where Self.asksForAttach(error) {
                    // A server killed while making a replicated table registered the replica in
                    // ZooKeeper, or kept the table's parts, but has no table: making it again
                    // fails for good, attaching it takes the registration and parts as they are.
                    try await run(ClickHouseSchema.attachStatement(forCreate: statement), on: index)
                }
            }
        }
    }

    /// Whether ClickHouse refused a `CREATE` because what the table leaves behind is there
    /// already: the replica registered in ZooKeeper (`REPLICA_IS_ALREADY_EXIST`, code 253), or
    /// the table's data directory holding parts (`INCORRECT_FILE_NAME`, code 117, "use ATTACH
    /// TABLE instead").
    private static func asksForAttach(_ failure: ShippingFailure) -> Bool {
        failure.description.contains("Code: 253,") || failure.description.contains("Code: 117,")
    }

    /// A replica that was down when the tables were made gets them once it answers, tried in
    /// the background at most every ``lateServerInterval`` while requests go to the others:
    /// without its local table it would never replicate what the others took meanwhile.
    func prepareLater() {
        let due = lateServers.withLock { state -> [Int] in
            let now = ContinuousClock.now
            guard !state.missing.isEmpty, !state.isTrying,
                state.lastTry.map({ now - $0 >= Self.lateServerInterval }) ?? true
            else { return [] }
            state.isTrying = true
            state.lastTry = now
            return state.missing.keys.sorted()
        }
        guard !due.isEmpty else { return }
        Task {
            var outcomes: [Int: String?] = [:]
            for index in due {
                do {
                    try await createTables(on: index)
                    outcomes[index] = .some(nil)
                } catch {
                    outcomes[index] = "\(error)"
                }
            }
            lateServers.withLock { state in
                for (index, failure) in outcomes { state.missing[index] = failure }
                state.isTrying = false
            }
        }
    }

    static let lateServerInterval: Duration = .seconds(2)

    var pendingPreparation: String? {
        let silent = silentServers.withLock { $0 }
        let waiting = lateServers.withLock { $0.missing.filter { !silent.contains($0.key) } }
        guard let (_, reason) = waiting.min(by: { $0.key < $1.key }) else { return nil }
        return "waiting for a replica that answers to take its tables: \(reason)"
    }

    func encode(_ rows: ShippingRows, shipment: Shipment) throws(ShippingFailure) -> ShippingRequest {
        let storeID = shipment.store.uuidString.lowercased()
        var request = ShippingRequest(rows: rows, bodies: [], bytes: 0)
        // Sized for the rows up front: growing a buffer of megabytes by doubling copies it and
        // touches fresh pages each time.
        var encoder = ClickHouseRowBinary(capacity: rows.messages.isEmpty ? rows.estimatedBytes : 1 << 16)
        if !rows.messages.isEmpty {
            let (payload, bytes) = try Self.messagesBody(rows, shipment: shipment, storeID: storeID)
            request.bodies.append(ShippingRequest.Body(
                query: insertSQL(ClickHouseSchema.messages), payload: payload, headers: [:],
                isClickHouseCompressed: shipment.compresses))
            request.bytes += bytes
        }
        if !rows.tasks.isEmpty {
            for task in rows.tasks { encoder.append(task, shipment: shipment, storeID: storeID, version: rows.version) }
            try add(encoder.bytes, into: ClickHouseSchema.tasks, compresses: shipment.compresses, to: &request)
            encoder.removeAll()
        }
        if !rows.gaps.isEmpty {
            for gap in rows.gaps { encoder.append(gap, shipment: shipment, storeID: storeID, version: rows.version) }
            try add(encoder.bytes, into: ClickHouseSchema.gaps, compresses: shipment.compresses, to: &request)
        }
        return request
    }

    /// The messages of `rows` as one insert's body and their size before compression. A large
    /// request is encoded and compressed in two halves on two threads: a body is a sequence of
    /// `RowBinary` rows, and of independent compressed blocks, so two halves in order are one
    /// body. Making the next request was the shipper's slowest step, on one core.
    private static func messagesBody(
        _ rows: ShippingRows, shipment: Shipment, storeID: String
    ) throws(ShippingFailure) -> (payload: Data, bytes: Int) {
        let messages = rows.messages
        let parts = messages.count >= 2 * minimumRowsPerPart ? 2 : 1
        let bounds = (0...parts).map { messages.count * $0 / parts }
        let results = Mutex<[Int: Result<(payload: [UInt8], bytes: Int), ClickHouseCompressionError>]>([:])
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let share = rows.estimatedBytes / parts + (1 << 16)
            var encoder = ClickHouseRowBinary(capacity: share)
            for message in messages[bounds[part]..<bounds[part + 1]] {
                encoder.append(message, shipment: shipment, storeID: storeID, version: rows.version)
            }
            let bytes = encoder.bytes
            let result = Result { () throws(ClickHouseCompressionError) -> (payload: [UInt8], bytes: Int) in
                (shipment.compresses ? try ClickHouseCompressedBody.encode(bytes) : bytes, bytes.count)
            }
            results.withLock { $0[part] = result }
        }
        var payload = Data()
        var total = 0
        for part in 0..<parts {
            switch results.withLock({ $0[part] }) {
            case .success(let encoded):
                payload.append(contentsOf: encoded.payload)
                total += encoded.bytes
            case .failure(let error):
                throw .refused("the request could not be compressed: \(error)", tooLarge: false)
            case nil:
                throw .refused("the request could not be encoded", tooLarge: false)
            }
        }
        return (payload, total)
    }

    /// Below this many messages a request is encoded on one thread.
    static let minimumRowsPerPart = 10_000

    private func insertSQL(_ table: ClickHouseSchema.Table) -> String {
        "INSERT INTO \(ClickHouseSchema.insertTable(table, database: destination.database, cluster: destination.cluster)) "
            + "(\(table.columnList)) FORMAT RowBinary"
    }

    /// One table's insert: the statement, and the rows as `RowBinary`.
    private func add(
        _ body: [UInt8], into table: ClickHouseSchema.Table, compresses: Bool, to request: inout ShippingRequest
    ) throws(ShippingFailure) {
        request.bodies.append(try ShippingRequest.Body(clickHouseQuery: insertSQL(table), bytes: body, compresses: compresses))
        request.bytes += body.count
    }

    func send(_ request: ShippingRequest) async throws(ShippingFailure) {
        prepareLater()
        for body in request.bodies {
            let index = current.withLock { $0 }
            do {
                try await post(body.query, body: body.payload, headers: body.headers, decompress: body.isClickHouseCompressed, to: index)
            } catch {
                // The next server gets the retry; a refusal is the rows' fault, not the server's.
                if case .retryable = error { current.withLock { $0 = (index + 1) % max(1, destination.urls.count) } }
                throw error
            }
        }
    }

    private func run(_ sql: String, on index: Int) async throws(ShippingFailure) {
        try await post(nil, body: Data(sql.utf8), headers: [:], to: index)
    }

    /// Posts to server `index`: `query` in the URL (an insert, whose rows are the body, in
    /// ClickHouse's compressed-block format when `decompress`), or the body as the statement.
    private func post(
        _ query: String?, body: Data, headers: [String: String], decompress: Bool = false, to index: Int
    ) async throws(ShippingFailure) {
        let base = destination.urls[index]
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw .refused("\(base.withoutCredentials) is not a URL ClickHouse can be reached at", tooLarge: false)
        }
        var headers = headers
        if let user = components.user { headers["X-ClickHouse-User"] = user.removingPercentEncoding ?? user }
        if let password = components.password { headers["X-ClickHouse-Key"] = password.removingPercentEncoding ?? password }
        components.user = nil
        components.password = nil
        var items = components.queryItems ?? []
        if let query { items.append(URLQueryItem(name: "query", value: query)) }
        if decompress { items.append(URLQueryItem(name: "decompress", value: "1")) }
        components.queryItems = items.isEmpty ? nil : items
        guard let url = components.url else {
            throw .refused("\(base.withoutCredentials) is not a URL ClickHouse can be reached at", tooLarge: false)
        }
        let answer: HTTPPoster.Answer
        do {
            answer = try await poster.post(url, body: body, headers: headers)
            silentServers.withLock { _ = $0.remove(index) }
        } catch {
            silentServers.withLock { _ = $0.insert(index) }
            throw .retryable("\(base.withoutCredentials): \(error.localizedDescription)", retryAfter: nil)
        }
        switch answer.status {
        case 200..<300: return
        case 413: throw .refused("\(base.withoutCredentials) answered 413: \(answer.excerpt)", tooLarge: true)
        // A missing table (a replica that was down when the others got theirs) is made when
        // the destination is prepared again, before the retry.
        case 400..<500 where answer.status != 429 && answer.status != 408 && answer.status != 404:
            throw .refused("\(base.withoutCredentials) answered \(answer.status): \(answer.excerpt)", tooLarge: false)
        default:
            throw .retryable(
                "\(base.withoutCredentials) answered \(answer.status): \(answer.excerpt)",
                retryAfter: answer.headers["retry-after"].flatMap(RetryAfter.parse))
        }
    }
}
