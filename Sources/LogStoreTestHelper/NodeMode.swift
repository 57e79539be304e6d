import Foundation
import LogStore

/// `LogStoreTestHelper node <store> <count> <per-second>`: a server node of the fleet tests. It
/// logs `count` messages at a steady rate, every tenth beside a network task (which adds its
/// own technical message), flushes and closes, then says `logged <messages> <tasks>`: what
/// a shipper must deliver. Killed or not, the store keeps what the flushes acknowledged.
func runNodeMode(arguments: [String]) async -> Never {
    guard arguments.count == 5, let count = Int(arguments[3]), let perSecond = Double(arguments[4]), perSecond > 0 else {
        FileHandle.standardError.write(Data("usage: LogStoreTestHelper node <store> <count> <per-second>\n".utf8))
        exit(64)
    }
    do {
        let store = try await LogStore(storeURL: URL(fileURLWithPath: arguments[2]), options: [.create])
        let start = ContinuousClock.now
        var tasks = 0
        for index in 0..<count {
            let due = start + .seconds(Double(index) / perSecond)
            if due > .now { try await Task.sleep(until: due, clock: .continuous) }
            store.storeMessage(
                label: index % 3 == 0 ? "db" : "api", level: index % 50 == 0 ? .error : .info,
                message: "request \(index) handled", metadata: ["index": .stringConvertible(index)])
            if index % 10 == 0, let target = URL(string: "http://catalog.internal/items/\(index)") {
                store.storeRequest(
                    NetworkRequest(url: target, method: "GET"),
                    response: NetworkResponse(url: target, statusCode: index % 40 == 0 ? 503 : 200),
                    error: nil, data: Data("item \(index)".utf8))
                tasks += 1
            }
        }
        try await store.flush()
        try await store.close()
        say("logged \(count) \(tasks)")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("node: \(error)\n".utf8))
        exit(1)
    }
}
