import Foundation
import LogStore
import Testing

/// `export(to:format: .ndjson)`: the golden output of a fixed store, every filter of
/// ``ExportOptions``, and lines that parse as JSON (with Python's `json` too), hostile text included.
@Suite struct NDJSONExportTests {
    static let golden = #"""
        {"type":"message","id":1,"time":"2025-06-15T15:06:40.125Z","timestamp":1750000000.125,"level":"info","label":"app","text":"server started","metadata":{"env":"prod","port":"8080"},"file":"Server.swift","function":"start()","line":10,"threadID":0,"threadName":"T","session":"SESSION1"}
        {"type":"message","id":2,"time":"2025-06-15T15:06:41.000Z","timestamp":1750000001,"level":"warning","label":"http","text":"slow response","metadata":{"request":{"id":"r-1","path":"/orders"},"tags":["a","b c"]},"file":"Routes.swift","function":"orders()","line":88,"threadID":0,"threadName":"T","session":"SESSION1"}
        {"type":"message","id":3,"time":"2025-06-15T15:06:41.500Z","timestamp":1750000001.5,"level":"error","label":"http","text":"line one\nline two\u001b[31mred\u0000nul \"quoted\" back\\slash \u2028sep \u202ertl\"},{\"x\":1","metadata":{"empty":"","evil":"a=b \"c\"\n"},"file":"Routes.swift","function":"orders()","line":90,"threadID":0,"threadName":"T","session":"SESSION1"}
        {"type":"message","id":4,"time":"2025-06-15T15:06:43.999Z","timestamp":1750000003.999,"level":"debug","label":"db","text":"query took 3 ms","metadata":{},"file":"DB.swift","function":"query()","line":7,"threadID":0,"threadName":"T","session":"SESSION1"}
        {"type":"task","id":"00000000-0000-4000-8000-000000000001","rowID":1,"time":"2025-06-15T15:06:42.000Z","timestamp":1750000002,"label":"network","taskType":"data","state":"success","direction":"outbound","method":"GET","url":"https://api.example.com/users?page=2","host":"api.example.com","status":200,"contentType":"application/json","duration":0.25,"requestBodySize":0,"responseBodySize":12,"error":null,"requestHeaders":{"Accept":"application/json","X-Trace":"t-1"},"responseHeaders":{"Content-Type":"application/json"},"requestBodyKey":null,"responseBodyKey":"d5b97fc9bb3ca5868bc163d509dd2605101d05a6","taskDescription":null,"decodingError":null,"session":"SESSION1"}
        {"type":"task","id":"00000000-0000-4000-8000-000000000002","rowID":2,"time":"2025-06-15T15:06:43.000Z","timestamp":1750000003,"label":"network","taskType":"data","state":"failure","direction":"outbound","method":"POST","url":"https://api.example.com/orders","host":"api.example.com","status":null,"contentType":null,"duration":1.5,"requestBodySize":8,"responseBodySize":0,"error":{"code":7,"domain":"TestDomain","description":"connection reset"},"requestHeaders":{"Content-Type":"application/json"},"responseHeaders":null,"requestBodyKey":"87911d1aed509877b83a48ec536f768cdcd22df1","responseBodyKey":null,"taskDescription":null,"decodingError":null,"session":"SESSION1"}

        """#

    @Test func matchesTheGolden() async throws {
        try await ExportFixture.withStore { store, exports in
            let text = try await ExportFixture.export(store, .ndjson, in: exports)
            let sessions = try await store.sessions().map(\.id)
            #expect(ExportFixture.normalised(text, sessions: sessions) == Self.golden)
        }
    }

    @Test func hostileTextRoundTripsThroughJSON() async throws {
        try await ExportFixture.withStore { store, exports in
            let lines = try await objects(store, ExportOptions(), in: exports)
            let hostile = try #require(lines.first { $0["id"] as? Int == 3 })
            #expect(hostile["text"] as? String == ExportFixture.hostile)
            let metadata = try #require(hostile["metadata"] as? [String: Any])
            #expect(metadata["evil"] as? String == "a=b \"c\"\n")
        }
    }

    @Test func everyLineParsesWithPythonsJSON() async throws {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            print("NDJSONExportTests.everyLineParsesWithPythonsJSON: skipped, \(python) is not installed")
            return
        }
        try await ExportFixture.withStore { store, exports in
            let url = exports.appendingPathComponent("out.ndjson")
            _ = try await store.export(to: url, format: .ndjson)
            let script = """
                import json, sys
                types = []
                with open(sys.argv[1], encoding="utf-8") as f:
                    for line in f:
                        types.append(json.loads(line)["type"])
                        assert line.endswith("\\n") and "\\n" not in line[:-1]
                print(",".join(types))
                """
            let result = try await onOwnThread { try runProcess(python, ["-c", script, url.path]) }
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "message,message,message,message,task,task\n")
        }
    }

    // MARK: Filters

    @Test func sessionsSelectMessagesAndTasks() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { try await ExportFixture.fill($0) }
            try await withStore(at: url) { store in
                store.storeMessage(createdAt: ExportFixture.at(10), label: "app", level: .info, message: "second run")
                store.storeRequest(
                    NetworkRequest(url: URL(string: "https://example.com/"), method: "GET"),
                    response: NetworkResponse(statusCode: 204), error: nil, data: nil, createdAt: ExportFixture.at(11))
                try await store.flush()
                let sessions = try await store.sessions().sorted { $0.startDate < $1.startDate }.map(\.id)
                #expect(sessions.count == 2)
                let exports = url.deletingLastPathComponent()
                let second = try await objects(store, ExportOptions(sessions: [sessions[1]]), in: exports)
                #expect(second.map { $0["type"] as? String } == ["message", "task"])
                #expect(second.first?["text"] as? String == "second run")
                #expect(second.allSatisfy { $0["session"] as? String == sessions[1].uuidString })
                let first = try await objects(store, ExportOptions(sessions: [sessions[0]]), in: exports)
                #expect(first.count == 6)
                // Disjoint with the message query's own sessions: no message, the tasks still.
                let disjoint = ExportOptions(sessions: [sessions[0]], messages: MessageQuery(sessions: [sessions[1]]))
                let onlyTasks = try await objects(store, disjoint, in: exports)
                #expect(onlyTasks.map { $0["type"] as? String } == ["task", "task"])
            }
        }
    }

    @Test func sinceIsInclusiveAndUntilExclusive() async throws {
        try await ExportFixture.withStore { store, exports in
            let options = ExportOptions(since: ExportFixture.at(1), until: ExportFixture.at(3))
            let lines = try await objects(store, options, in: exports)
            #expect(ids(lines, "message") == ["2", "3"])
            #expect(ids(lines, "task") == [ExportFixture.okTaskID.uuidString])
        }
    }

    @Test func theMessageQueryFiltersLevelLabelAndText() async throws {
        try await ExportFixture.withStore { store, exports in
            let levels = ExportOptions(messages: MessageQuery(levels: .warning ... .critical), tasks: nil)
            let byLevel = try await objects(store, levels, in: exports)
            #expect(ids(byLevel, "message") == ["2", "3"])
            let label = ExportOptions(messages: MessageQuery(labels: ["db"]), tasks: nil)
            let byLabel = try await objects(store, label, in: exports)
            #expect(ids(byLabel, "message") == ["4"])
            let text = ExportOptions(messages: MessageQuery(text: .plain("slow")), tasks: nil)
            let byText = try await objects(store, text, in: exports)
            #expect(ids(byText, "message") == ["2"])
        }
    }

    @Test func nilQueriesLeaveOutMessagesOrTasks() async throws {
        try await ExportFixture.withStore { store, exports in
            let noTasks = try await objects(store, ExportOptions(tasks: nil), in: exports)
            #expect(noTasks.count == 4 && ids(noTasks, "task").isEmpty)
            let noMessages = try await objects(store, ExportOptions(messages: nil), in: exports)
            #expect(noMessages.count == 2 && ids(noMessages, "message").isEmpty)
            let failures = try await objects(store, ExportOptions(messages: nil, tasks: TaskQuery(isFailure: true)), in: exports)
            #expect(ids(failures, "task") == [ExportFixture.failedTaskID.uuidString])
            let report = try await store.export(
                to: exports.appendingPathComponent("empty.ndjson"), format: .ndjson,
                options: ExportOptions(messages: nil, tasks: nil))
            #expect(report.messageCount == 0 && report.taskCount == 0 && report.byteCount == 0)
        }
    }

    // MARK: Helpers

    private func objects(_ store: LogStore, _ options: ExportOptions, in directory: URL) async throws -> [[String: Any]] {
        let text = try await ExportFixture.export(store, .ndjson, options: options, in: directory)
        return try text.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    private func ids(_ objects: [[String: Any]], _ type: String) -> [String] {
        objects.filter { $0["type"] as? String == type }.compactMap { object in
            (object["id"] as? String) ?? (object["id"] as? Int).map(String.init)
        }
    }
}
