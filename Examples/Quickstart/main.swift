// A tour of LogStore in one run: messages, then real HTTP calls recorded through a URLSession,
// against a server in this process (no network needed). Run it from the repository root:
//
//     swift run logstore-example [STORE]
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LogStore

let path = CommandLine.arguments.dropFirst().first
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("logstore-example.logstore").path
let store = try await LogStore(storeURL: URL(fileURLWithPath: path))
print("Store: \(path)")

logMessages(to: store)

// A local server with three answers: an order, a 404 and an order created from a POST.
let server = try LocalServer.start { method, path, body in
    switch (method, path) {
    case ("GET", "/orders/42"):
        (200, "application/json", Data(#"{"id":42,"status":"paid","total":"19.90"}"#.utf8))
    case ("POST", "/orders"):
        (201, "application/json", Data(#"{"id":43,"created":true}"#.utf8))
    default:
        (404, "text/plain", Data("no such page: \(path)".utf8))
    }
}

// Every task of this session is recorded: request, response, bodies, timings. Secrets are
// redacted before they reach the disk: the Authorization header and the "password" field below.
let session = NetworkLogger(store: store, label: "orders-client").makeSession()
var get = URLRequest(url: server.url("/orders/42"))
get.setValue("Bearer example-token", forHTTPHeaderField: "Authorization")
let (_, order) = try await session.recordedData(for: get)
let (_, missing) = try await session.recordedData(from: server.url("/orders/missing"))
var post = URLRequest(url: server.url("/orders"))
post.httpMethod = "POST"
post.setValue("application/json", forHTTPHeaderField: "Content-Type")
let (_, created) = try await session.recordedUpload(
    for: post, from: Data(#"{"item":"A-1","quantity":2,"password":"hunter2"}"#.utf8))
session.finishTasksAndInvalidate()
for response in [order, missing, created] {
    print("\((response as? HTTPURLResponse)?.statusCode ?? 0) \(response.url?.path ?? "")")
}

try await store.flush()
try await store.close()
print("""

    Now look at what was stored:
      swift run logstore tail \(path) -n 20
      swift run logstore tasks \(path)
      swift run logstore task \(path) <id>     # an id from the tasks list: headers, bodies, timings
    """)
