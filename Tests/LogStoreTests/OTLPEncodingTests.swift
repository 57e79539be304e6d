import Foundation
@testable import LogStore
import Testing

/// `OTLPLogsEncoder`'s request bodies, decoded in Swift by the shape OTLP/HTTP JSON prescribes
/// (`int64` as decimal strings, ids as hex, one `AnyValue` field per value), and read by a
/// collector's parser: `otlp_receiver.py --parse` (opentelemetry-proto), when python3 has it.
@Suite("OTLP encoding")
struct OTLPEncodingTests {
    // MARK: Fixtures

    static let session = UUID(uuidString: "6F1C2E8A-0B1D-4C5E-9F00-112233445566")!
    static let resource = OTLPResource(serviceName: "orders", serviceInstanceID: "a1b2c3", hostName: "web-1")
    /// A time with microseconds, as the store keeps them.
    static let logged = Date(timeIntervalSince1970: 1_700_000_000.123456)
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let spanID = "00f067aa0ba902b7"

    static func message(
        _ id: Int64, _ level: LogStore.Level = .info, metadata: LogStore.Metadata = [:], at date: Date = logged
    ) -> LogStore.Message {
        LogStore.Message(
            id: id, createdAt: date, level: level, label: "orders.api", text: "message \(id)", metadata: metadata,
            file: "Handler.swift", function: "handle(_:)", line: 42, threadID: 7, threadName: "worker",
            sessionID: session)
    }

    static func task(
        _ rowID: Int64, status: Int?, direction: NetworkTaskDirection = .outbound, error: NetworkError? = nil,
        traceparent: String? = nil
    ) -> ShippedTask {
        ShippedTask(
            summary: NetworkTaskSummary(
                rowID: rowID, id: UUID(uuidString: "00000000-0000-4000-8000-00000000000\(rowID)")!, sessionID: session,
                label: "network", createdAt: logged, taskType: .data,
                state: status != nil && error == nil ? .success : .failure, method: "GET",
                url: "https://api.example.com/items?page=2", host: "api.example.com", statusCode: status, error: error,
                contentType: "application/json", duration: 0.012, requestBodySize: 0, responseBodySize: 321,
                progress: nil, direction: direction),
            traceparent: traceparent)
    }

    /// One message per level, ids 1 to 7, trace to critical.
    static let levelMessages = LogStore.Level.allCases.enumerated().map { message(Int64($0.offset + 1), $0.element) }

    /// Times: with microseconds, half a second after 1970, before 1970 (unknown: 0), and one
    /// that rounds up to the next second.
    static let timeMessages = [
        message(1, at: logged), message(2, at: Date(timeIntervalSince1970: 0.5)),
        message(3, at: Date(timeIntervalSince1970: -10)), message(4, at: Date(timeIntervalSince1970: 1_700_000_000.9999996)),
    ]

    static let nestedMetadata: LogStore.Metadata = [
        "user": "42",
        "request": ["path": "/orders", "headers": ["accept": "application/json"], "ids": ["1", "2"]],
        "tags": ["a", ["k": "v"], []],
        "count": .stringConvertible(7),
        // A message's own fact: the stored one is the attribute, this one is left out.
        "logstore.id": "spoofed",
    ]

    /// Metadata spelling trace context in every way the rule reads, and some it must not.
    static let traceMessages = [
        message(1, metadata: ["traceparent": "00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01"]),
        message(2, metadata: ["trace_id": .string(traceID), "span_id": .string(spanID)]),
        message(3, metadata: ["traceId": .string(traceID.uppercased())]),
        // All zeros is W3C's invalid id, and a span without a trace is nothing.
        message(4, metadata: ["trace_id": "00000000000000000000000000000000", "span_id": .string(spanID)]),
        message(5, metadata: ["trace_id": "4bf92f35"]),
        // An invalid traceparent (version ff) leaves the trace_id to count.
        message(6, metadata: [
            "traceparent": "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "trace_id": .string(traceID),
        ]),
        message(7, metadata: ["request": ["trace_id": .string(traceID)]]),
        message(8, metadata: ["traceID": "0af7651916cd43dd8448eb211c80319c", "trace_id": .string(traceID)]),
        message(9, metadata: ["trace_id": .stringConvertible(traceID), "spanId": .string(spanID)]),
    ]

    static let timeout = NetworkError(code: -1001, domain: "NSURLErrorDomain", description: "The request timed out.")

    static let tasks = [
        task(1, status: 200, traceparent: "00-\(traceID)-\(spanID)-01"),
        task(2, status: 404),
        task(3, status: 404, direction: .inbound),
        task(4, status: nil, error: timeout),
        task(5, status: 503, traceparent: "00-xyz"),
    ]

    /// Every body of this suite, by name: the collector test reads each.
    static let fixtures: [(name: String, messages: [LogStore.Message], tasks: [ShippedTask])] = [
        ("levels", levelMessages, []),
        ("times", timeMessages, []),
        ("metadata", [message(9, .notice, metadata: nestedMetadata)], []),
        ("traces", traceMessages, []),
        ("tasks", [], tasks),
        ("mixed", levelMessages + traceMessages.map { var copy = $0; copy.id += 100; return copy }, tasks),
        ("empty", [], []),
    ]

    static func encode(_ messages: [LogStore.Message], _ tasks: [ShippedTask] = []) -> [UInt8] {
        OTLPLogsEncoder(resource: resource).encode(messages: messages, tasks: tasks)
    }

    // MARK: Messages

    @Test func levelsBecomeSeverityNumbersAndNames() throws {
        let records = try OTLPBody.decode(Self.encode(Self.levelMessages)).records
        #expect(records.map(\.severityNumber) == [1, 5, 9, 10, 13, 17, 18])
        #expect(records.map(\.severityText) == ["trace", "debug", "info", "notice", "warning", "error", "critical"])
        #expect(records.map(\.body) == (1...7).map { OTLPValue.string("message \($0)") })
    }

    @Test func timesAreDecimalNanosecondStrings() throws {
        let bytes = Self.encode(Self.timeMessages)
        let records = try OTLPBody.decode(bytes).records
        #expect(records.map(\.timeUnixNano) == ["1700000000123456000", "500000000", "0", "1700000001000000000"])
        #expect(records.map(\.observedTimeUnixNano) == records.map(\.timeUnixNano))
        // Strings, not numbers: a JavaScript reader would round a number past 2^53.
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""timeUnixNano":"1700000000123456000""#))
    }

    @Test func metadataBecomesNestedAttributes() throws {
        let record = try #require(try OTLPBody.decode(Self.encode([Self.message(9, .notice, metadata: Self.nestedMetadata)])).records.first)
        #expect(record.attributes.map(\.key) == [
            "logstore.id", "logstore.label", "logstore.session.id", "code.filepath", "code.function", "code.lineno",
            "thread.id", "thread.name", "count", "request", "tags", "user",
        ])
        #expect(record["logstore.id"] == .int(9))
        #expect(record["logstore.label"] == .string("orders.api"))
        #expect(record["logstore.session.id"] == .string(Self.session.uuidString))
        #expect(record["code.lineno"] == .int(42))
        #expect(record["thread.id"] == .int(7))
        #expect(record["user"] == .string("42"))
        #expect(record["count"] == .string("7"))
        #expect(record["request"] == .kvlist([
            OTLPAttribute(key: "headers", value: .kvlist([OTLPAttribute(key: "accept", value: .string("application/json"))])),
            OTLPAttribute(key: "ids", value: .array([.string("1"), .string("2")])),
            OTLPAttribute(key: "path", value: .string("/orders")),
        ]))
        #expect(record["tags"] == .array([.string("a"), .kvlist([OTLPAttribute(key: "k", value: .string("v"))]), .array([])]))
        #expect(record.traceId == nil && record.spanId == nil && record.flags == nil)
    }

    @Test func traceIDsComeFromMetadata() throws {
        let records = try OTLPBody.decode(Self.encode(Self.traceMessages)).records
        let contexts = records.map { [$0.traceId ?? "-", $0.spanId ?? "-", $0.flags.map(String.init) ?? "-"] }
        #expect(contexts == [
            ["0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", "1"],
            [Self.traceID, Self.spanID, "-"],
            [Self.traceID, "-", "-"],
            ["-", "-", "-"],
            ["-", "-", "-"],
            [Self.traceID, "-", "-"],
            ["-", "-", "-"],
            [Self.traceID, "-", "-"],
            [Self.traceID, Self.spanID, "-"],
        ])
        // The entries stay attributes either way.
        #expect(records[1]["trace_id"] == .string(Self.traceID))
        #expect(records[1]["span_id"] == .string(Self.spanID))
    }

    /// One parser for both destinations: OTLP's record fields and ClickHouse's `trace_id` column.
    @Test func traceparentParsing() {
        let valid = TraceContext(traceparent: "00-\(Self.traceID.uppercased())-\(Self.spanID)-01")
        #expect(valid?.traceID == Self.traceID)
        #expect(valid?.spanID == Self.spanID)
        #expect(valid?.flags == 1)
        // A later version may carry more fields after a dash; version 00 may not.
        #expect(TraceContext(traceparent: "01-\(Self.traceID)-\(Self.spanID)-00-extra")?.flags == 0)
        for invalid in [
            nil, "", "00-\(Self.traceID)-\(Self.spanID)-01-extra", "ff-\(Self.traceID)-\(Self.spanID)-01",
            "00-\(Self.traceID)-0000000000000000-01", "00-\(Self.traceID.dropLast())g-\(Self.spanID)-01",
            "00-\(Self.traceID)-\(Self.spanID)", "00_\(Self.traceID)-\(Self.spanID)-01",
        ] {
            #expect(TraceContext(traceparent: invalid) == nil, "\(invalid ?? "nil")")
        }
    }

    // MARK: Tasks

    @Test func tasksBecomeHTTPRecords() throws {
        let records = try OTLPBody.decode(Self.encode([], Self.tasks)).records
        #expect(records.map(\.severityNumber) == [9, 17, 13, 17, 17])
        #expect(records.map(\.body) == [
            .string("GET https://api.example.com/items?page=2 \u{2192} 200 (12 ms)"),
            .string("GET https://api.example.com/items?page=2 \u{2192} 404 (12 ms)"),
            .string("GET https://api.example.com/items?page=2 \u{2192} 404 (12 ms)"),
            .string("GET https://api.example.com/items?page=2 \u{2192} The request timed out. (12 ms)"),
            .string("GET https://api.example.com/items?page=2 \u{2192} 503 (12 ms)"),
        ])
        let ok = records[0]
        #expect(ok.attributes.map(\.key) == [
            "http.request.method", "url.full", "server.address", "http.response.status_code",
            "http.response.header.content-type", "http.request.body.size", "http.response.body.size",
            "logstore.task.id", "logstore.task.row_id", "logstore.task.state", "logstore.task.type",
            "logstore.task.direction", "logstore.task.duration", "logstore.label", "logstore.session.id",
        ])
        #expect(ok["http.request.method"] == .string("GET"))
        #expect(ok["url.full"] == .string("https://api.example.com/items?page=2"))
        #expect(ok["server.address"] == .string("api.example.com"))
        #expect(ok["http.response.status_code"] == .int(200))
        #expect(ok["http.response.header.content-type"] == .array([.string("application/json")]))
        #expect(ok["http.response.body.size"] == .int(321))
        #expect(ok["logstore.task.row_id"] == .int(1))
        #expect(ok["logstore.task.state"] == .string("success"))
        #expect(ok["logstore.task.direction"] == .string("outbound"))
        #expect(ok["logstore.task.duration"] == .double(0.012))
        #expect([ok.traceId, ok.spanId, ok.flags.map(String.init)] == [Self.traceID, Self.spanID, "1"])

        #expect(records[1]["error.type"] == .string("404"))
        #expect(records[2]["logstore.task.direction"] == .string("inbound"))
        #expect(records[3]["error.type"] == .string("NSURLErrorDomain -1001"))
        #expect(records[3]["error.message"] == .string("The request timed out."))
        #expect(records[3]["http.response.status_code"] == nil)
        // A malformed traceparent is no trace context.
        #expect(records[4].traceId == nil)
        #expect(records.dropFirst().allSatisfy { $0.traceId == nil })
    }

    // MARK: The request

    @Test func oneResourceAndScopePerRequest() throws {
        let bytes = Self.encode(Self.levelMessages, Self.tasks)
        let body = try OTLPBody.decode(bytes)
        try #require(body.resourceLogs.count == 1)
        #expect(body.resourceLogs[0].resource.attributes == [
            OTLPAttribute(key: "service.name", value: .string("orders")),
            OTLPAttribute(key: "service.instance.id", value: .string("a1b2c3")),
            OTLPAttribute(key: "host.name", value: .string("web-1")),
        ])
        try #require(body.resourceLogs[0].scopeLogs.count == 1)
        #expect(body.resourceLogs[0].scopeLogs[0].scope.name == "LogStore")
        #expect(body.resourceLogs[0].scopeLogs[0].scope.version == LogStore.Version.library.description)
        #expect(body.records.count == 12)
        // Equal input, equal bytes (a collector's deduplication, a resent request).
        #expect(Self.encode(Self.levelMessages, Self.tasks) == bytes)
        #expect(try OTLPBody.decode(Self.encode([])).records.isEmpty)
    }

    // MARK: A collector's parser

    /// Every fixture through opentelemetry-proto's parser: it accepts each, and reads the same
    /// severities, trace ids, times, resource and attributes (nesting included) as the Swift
    /// decoding above.
    @Test(.enabled(if: OTLPReceiver.isAvailable, OTLPReceiver.unavailable))
    func collectorParserReadsEveryBody() async throws {
        try await withTemporaryDirectory { directory in
            for fixture in Self.fixtures {
                let bytes = Self.encode(fixture.messages, fixture.tasks)
                let swift = try OTLPBody.decode(bytes)
                let result = try await OTLPReceiver.parse(bytes, in: directory)
                try #require(result.status == 0, "\(fixture.name): \(result.standardError)")
                let parsed = try JSONDecoder().decode(ParsedBody.self, from: Data(result.standardOutput.utf8))
                #expect(parsed.severities == swift.records.map(\.severityNumber), "\(fixture.name)")
                #expect(parsed.ids == fixture.messages.map(\.id), "\(fixture.name)")
                #expect(parsed.taskIDs == fixture.tasks.map(\.summary.rowID), "\(fixture.name)")
                var traces: [String: [String]] = [:]
                for (key, record) in zip(parsed.keys, swift.records) where record.traceId != nil {
                    traces[key] = [record.traceId ?? "", record.spanId ?? ""]
                }
                #expect(parsed.traces == traces, "\(fixture.name)")
                let records = parsed.message.records
                try #require(records.count == swift.records.count, "\(fixture.name)")
                for (read, written) in zip(records, swift.records) {
                    #expect(read.attributes == written.attributes, "\(fixture.name)")
                    #expect(read.body == written.body, "\(fixture.name)")
                    // Protobuf's JSON leaves out a field at its default: time 0.
                    #expect((read.timeUnixNano ?? "0") == written.timeUnixNano, "\(fixture.name)")
                    #expect((read.flags ?? 0) == (written.flags ?? 0), "\(fixture.name)")
                }
                if !fixture.messages.isEmpty || !fixture.tasks.isEmpty {
                    #expect(parsed.resource == ["service.name": "orders", "service.instance.id": "a1b2c3", "host.name": "web-1"])
                }
            }
        }
    }

    /// What the parser must refuse, so that its acceptance above means something: ids in
    /// base64 (Protobuf's mapping, not OTLP's), an unknown field, an `int64` that is no integer,
    /// an `AnyValue` with two values.
    @Test(.enabled(if: OTLPReceiver.isAvailable, OTLPReceiver.unavailable))
    func collectorParserRefusesMalformedBodies() async throws {
        func body(_ record: String) -> String {
            #"{"resourceLogs":[{"scopeLogs":[{"logRecords":["# + record + "]}]}]}"
        }
        let malformed = [
            body(#"{"traceId":"S/kvNXezTaajzpKdDg5HNg=="}"#),
            body(#"{"severity":9}"#),
            body(#"{"attributes":[{"key":"n","value":{"intValue":"4.5"}}]}"#),
            body(#"{"body":{"stringValue":"a","intValue":"1"}}"#),
            "not json",
        ]
        try await withTemporaryDirectory { directory in
            #expect(try await OTLPReceiver.parse(Array(body(#"{"timeUnixNano":"1"}"#).utf8), in: directory).status == 0)
            for text in malformed {
                let result = try await OTLPReceiver.parse(Array(text.utf8), in: directory)
                #expect(result.status == 1, "accepted: \(text)")
            }
        }
    }
}

// MARK: OTLP/HTTP JSON, decoded strictly

/// An `ExportLogsServiceRequest` as OTLP/HTTP JSON: decoding fails on a number where the mapping
/// wants a string, and on an `AnyValue` that is not exactly one value.
struct OTLPBody: Decodable {
    struct ResourceLogs: Decodable {
        var resource: Resource
        var scopeLogs: [ScopeLogs]
    }

    struct Resource: Decodable {
        var attributes: [OTLPAttribute]
    }

    struct ScopeLogs: Decodable {
        var scope: Scope
        var logRecords: [OTLPRecord]
    }

    struct Scope: Decodable {
        var name: String
        var version: String?
    }

    var resourceLogs: [ResourceLogs]

    var records: [OTLPRecord] { resourceLogs.flatMap { $0.scopeLogs.flatMap(\.logRecords) } }

    static func decode(_ bytes: [UInt8]) throws -> OTLPBody {
        try JSONDecoder().decode(OTLPBody.self, from: Data(bytes))
    }
}

struct OTLPRecord: Decodable {
    var timeUnixNano: String?
    var observedTimeUnixNano: String?
    var severityNumber: Int
    var severityText: String?
    var body: OTLPValue
    var attributes: [OTLPAttribute]
    var traceId: String?
    var spanId: String?
    var flags: UInt32?

    subscript(key: String) -> OTLPValue? {
        attributes.first { $0.key == key }?.value
    }
}

struct OTLPAttribute: Decodable, Equatable {
    var key: String
    var value: OTLPValue
}

/// An `AnyValue`: exactly one of its fields, `intValue` a decimal string.
indirect enum OTLPValue: Decodable, Equatable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case array([OTLPValue])
    case kvlist([OTLPAttribute])

    private enum Key: String, CodingKey {
        case stringValue, intValue, doubleValue, boolValue, arrayValue, kvlistValue
    }

    private struct Values<Element: Decodable>: Decodable {
        // Protobuf's JSON leaves out an empty list.
        var values: [Element]?
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "an AnyValue with \(container.allKeys.count) values"))
        }
        switch key {
        case .stringValue: self = .string(try container.decode(String.self, forKey: key))
        case .intValue:
            let text = try container.decode(String.self, forKey: key)
            guard let value = Int64(text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not an int64: \(text)")
            }
            self = .int(value)
        case .doubleValue: self = .double(try container.decode(Double.self, forKey: key))
        case .boolValue: self = .bool(try container.decode(Bool.self, forKey: key))
        case .arrayValue: self = .array(try container.decode(Values<OTLPValue>.self, forKey: key).values ?? [])
        case .kvlistValue: self = .kvlist(try container.decode(Values<OTLPAttribute>.self, forKey: key).values ?? [])
        }
    }
}

/// What `otlp_receiver.py --parse` prints: its summary and the request as Protobuf's JSON.
private struct ParsedBody: Decodable {
    /// Protobuf's JSON leaves out empty lists (and every field at its default).
    struct Message: Decodable {
        struct ResourceLogs: Decodable {
            var scopeLogs: [ScopeLogs]?
        }

        struct ScopeLogs: Decodable {
            var logRecords: [OTLPRecord]?
        }

        var resourceLogs: [ResourceLogs]?
        var records: [OTLPRecord] { (resourceLogs ?? []).flatMap { ($0.scopeLogs ?? []).flatMap { $0.logRecords ?? [] } } }
    }

    var ids: [Int64]
    var taskIDs: [Int64]
    var keys: [String]
    var severities: [Int]
    var traces: [String: [String]]
    var resource: [String: String]
    var message: Message

    private enum CodingKeys: String, CodingKey {
        case ids, taskIDs = "task_ids", keys, severities, traces, resource, message
    }
}
