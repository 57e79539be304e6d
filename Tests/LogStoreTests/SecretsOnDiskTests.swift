import Foundation
import LogStore
import Testing

/// Secrets never reach the disk or the event stream, whichever path logs them.
@Suite("Secrets on disk")
struct SecretsOnDiskTests {
    static let secrets = ["Bearer s3cr3t-t0ken-AAAA", "qs-t0k3n-BBBB", "hunter2-pa55w0rd-CCCC", "c00kie-DDDD"]

    static func request(_ index: Int) -> NetworkRequest {
        let url = URL(string: "https://api.example.com/v1/login?token=\(secrets[1])&page=\(index)")!
        let body = #"{"user":"ann","credentials":{"password":"\#(secrets[2])"},"tags":[{"password":"\#(secrets[2])"}]}"#
        return NetworkRequest(
            url: url, method: "POST",
            headers: ["authorization": secrets[0], "Cookie": "session=\(secrets[3])", "Content-Type": "application/json"],
            body: Data(body.utf8))
    }

    static func response(_ index: Int) -> NetworkResponse {
        NetworkResponse(url: request(index).url, statusCode: 200,
                        headers: ["Set-Cookie": "session=\(secrets[3])", "Content-Type": "application/json"])
    }

    /// A login form: the password and token as form fields.
    static func formRequest() -> NetworkRequest {
        NetworkRequest(
            url: URL(string: "https://api.example.com/v1/session")!, method: "POST",
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("user=ann&password=\(secrets[2])&token=\(secrets[1])".utf8))
    }

    /// A response body large enough to become a file (over the 16 KiB inline limit, even compressed).
    static func responseBody() -> Data {
        var body = #"{"password":"\#(secrets[2])","padding":["#
        for i in 0..<4_000 { body += "\"\(i)-\(i &* 7919 % 10_007)\"," }
        return Data((body + "\"end\"]}").utf8)
    }

    @Test func noSecretOnAnyPath() async throws {
        var configuration = LogStore.Configuration()
        configuration.redaction = Redaction(sensitiveQueryItems: ["token"], sensitiveJSONFields: ["password"])
        try await withTemporaryStoreURL { url in
            var published: [Data] = []
            try await withStore(at: url, configuration: configuration) { store in
                let events = store.events
                store.storeRequest(Self.request(0), response: Self.response(0), error: nil, data: Self.responseBody())
                let logger = NetworkLogger(store: store)
                let id = UUID()
                logger.logTaskCreated(taskID: id, request: Self.request(1))
                logger.logDataReceived(taskID: id, data: Self.responseBody())
                logger.logTaskCompleted(taskID: id, response: Self.response(1), error: nil)
                store.storeRequest(Self.formRequest(), response: Self.response(2), error: nil, data: nil)
                try await store.flush()

                for event in try await collect(events, upTo: 4) {
                    // Headers and URLs as JSON text; bodies as their raw bytes (JSON would
                    // base64 them, hiding a secret from the scan).
                    published.append(try JSONEncoder().encode(event))
                    if case .networkTaskCompleted(let completed) = event {
                        published += [completed.requestBody, completed.responseBody, completed.request.body]
                            .compactMap { $0 }
                    }
                }
                // Every stored body, decompressed.
                let keys = try await store.read { db in
                    try db.rows("SELECT lower(hex(key)) FROM blobs").compactMap { $0[0].text }
                }
                #expect(keys.count >= 2)
                for key in keys {
                    let body = try #require(try await store.blobData(forKey: key))
                    Self.expectNoSecret(in: body, "blob \(key)")
                }
                let tasks = try await store.tasks(TaskQuery()).tasks
                #expect(tasks.count == 3)
                let details = try #require(try await store.task(id: id))
                #expect(details.request?.value(forHTTPHeaderField: "Authorization") == "<private>")
            }
            for (index, event) in published.enumerated() { Self.expectNoSecret(in: event, "event \(index)") }
            // Every byte of every file in the store directory, the WAL and blob files included.
            let files = try #require(FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil))
            var scanned = 0
            for case let file as URL in files where !file.hasDirectoryPath {
                Self.expectNoSecret(in: try Data(contentsOf: file), file.lastPathComponent)
                scanned += 1
            }
            #expect(scanned >= 3)
        }
    }

    static func expectNoSecret(in data: Data, _ place: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in secrets {
            #expect(data.range(of: Data(secret.utf8)) == nil, "\(secret) found in \(place)", sourceLocation: sourceLocation)
        }
    }
}
