import Foundation
import LogStore
import Testing

/// Secrets never reach the disk or the event stream, whichever path logs them, with the default
/// configuration as a new user gets it.
@Suite("Secrets on disk")
struct SecretsOnDiskTests {
    static let secrets = [
        "Bearer s3cr3t-t0ken-AAAA", "qs-t0k3n-BBBB", "hunter2-pa55w0rd-CCCC", "c00kie-DDDD", "us3r-1nf0-EEEE",
        "r3fr3sh-FFFF", "p1n-GGGG",
    ]

    /// A URL with a password in its user info and a token in its query.
    static func url(_ index: Int) -> URL {
        URL(string: "https://ann:\(secrets[4])@api.example.com/v1/login?token=\(secrets[1])&page=\(index)")!
    }

    static func request(_ index: Int) -> NetworkRequest {
        let url = url(index)
        let body = #"{"user":"ann","credentials":{"Password":"\#(secrets[2])"},"tags":[{"refresh_token":"\#(secrets[5])"}],"pin":"\#(secrets[6])"}"#
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

    /// A failure whose description names the URL, password included, as URLSession's do.
    static func failure() -> any Error {
        NSError(domain: NSURLErrorDomain, code: -1004, userInfo: [
            NSLocalizedDescriptionKey: "Could not connect to \(url(3).absoluteString)",
            NSURLErrorFailingURLErrorKey: url(3),
        ])
    }

    /// Metrics whose transaction carries the URL (a redirect's, say).
    static func metrics() -> NetworkMetrics {
        NetworkMetrics(transactions: [NetworkTransactionMetrics(request: request(4), response: response(4))])
    }

    /// The defaults, extended by one field the way the README shows (`pin` is not a default).
    @Test func noSecretOnAnyPath() async throws {
        var configuration = LogStore.Configuration()
        configuration.redaction.sensitiveJSONFields.insert("pin")
        try await withTemporaryStoreURL { url in
            var published: [Data] = []
            try await withStore(at: url, configuration: configuration) { store in
                let events = store.subscribeEvents()
                store.storeRequest(Self.request(0), response: Self.response(0), error: nil, data: Self.responseBody())
                let logger = NetworkLogger(store: store)
                let id = UUID()
                logger.logTaskCreated(taskID: id, request: Self.request(1))
                logger.logDataReceived(taskID: id, data: Self.responseBody())
                logger.logTaskCompleted(taskID: id, response: Self.response(1), error: nil)
                store.storeRequest(Self.formRequest(), response: Self.response(2), error: nil, data: nil)
                store.storeRequest(
                    Self.request(3), response: nil, error: Self.failure(), data: nil, metrics: Self.metrics())
                try await store.flush()

                for event in try await collect(events, upTo: 5) {
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
                #expect(tasks.count == 4)
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
