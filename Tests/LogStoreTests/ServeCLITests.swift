import Foundation
import Glibc
import LogStore
import Testing

/// `logstore serve` as users run it: the real binary beside a store another process writes,
/// its printed URL opened, then SIGTERM (or SIGINT) ends it with status 0.
@Suite("logstore serve")
struct ServeCLITests {
    static let logstore = testHelperExecutable.deletingLastPathComponent().appendingPathComponent("logstore")

    /// A running `logstore serve`: its URL's port and token, and the process.
    struct Served {
        let process: ChildProcess
        let port: UInt16
        let token: String
        /// What it printed before its URL, the URL line included.
        let printed: String
    }

    /// Starts `logstore serve arguments…` and reads its URL line (within 30 s).
    static func serve(_ arguments: [String]) async throws -> Served {
        try await onOwnThread {
            let child = try ChildProcess(
                logstore, ["serve"] + arguments, standardOutput: .captured, standardError: .standardOutput)
            // `nil` when it printed no URL within the bound, or ended without one.
            let printed = child.waitForOutput(seconds: 30) { consoleURL(in: $0) != nil }?.text
            if let printed, let (port, token) = consoleURL(in: printed) {
                return Served(process: child, port: port, token: token, printed: printed)
            }
            child.stop()
            _ = child.waitForTermination(seconds: SpawnedProcess.killGraceSeconds)
            throw ConsoleClient.Failure(description: "no URL from logstore serve; it printed: \(child.output)")
        }
    }

    /// The port and token of the `Console: <url>` line in `text`, once it is there.
    private static func consoleURL(in text: String) -> (port: UInt16, token: String)? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Console: ") }),
            let url = URLComponents(string: String(line.dropFirst(9))),
            let port = url.port.flatMap(UInt16.init(exactly:)),
            let token = url.queryItems?.first(where: { $0.name == "token" })?.value
        else { return nil }
        return (port, token)
    }

    /// Sends `signal` and waits (bounded) for the exit status.
    static func stop(_ served: Served, with signal: Int32) async throws -> Int32 {
        try await onOwnThread {
            served.process.signal(signal)
            guard let ended = served.process.waitForTermination(seconds: 20) else {
                served.process.stop()
                _ = served.process.waitForTermination(seconds: SpawnedProcess.killGraceSeconds)
                return -1
            }
            return ended.status
        }
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func servesALiveStoreUntilSignalled(signal: Int32) async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                store.storeMessage(label: "app", level: .warning, message: "before serve")
                try await store.flush()
                let served = try await Self.serve([url.path])
                let client = ConsoleClient(port: served.port)
                let auth = [("Authorization", "Bearer \(served.token)")]
                do {
                    // A message the app logs while the console runs shows up in its API.
                    store.storeMessage(label: "app", level: .error, message: "while serving")
                    try await store.flush()
                    let page = try #require(try await client.get("/api/messages", headers: auth).json() as? [String: Any])
                    let texts = (page["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
                    #expect(texts == ["while serving", "before serve"])
                    #expect(try await client.get("/api/messages").status == 401)
                } catch {
                    _ = try await Self.stop(served, with: SIGKILL)
                    throw error
                }
                #expect(try await Self.stop(served, with: signal) == 0)
            }
        }
    }

    @Test func listeningBeyondLoopbackWarns() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { _ in }
            let served = try await Self.serve([url.path, "--listen", "0.0.0.0"])
            #expect(try await Self.stop(served, with: SIGTERM) == 0)
            #expect(served.printed.contains("warning: listening on 0.0.0.0"), "\(served.printed)")
        }
    }

    @Test func aPortInUseIsAClearError() async throws {
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { _ in }
            let first = try await Self.serve([url.path])
            let second = try await SpawnedProcess.run(Self.logstore, ["serve", url.path, "--port", "\(first.port)"], seconds: 30)
            #expect(try await Self.stop(first, with: SIGTERM) == 0)
            #expect(second.status == 1)
            #expect(second.output.contains("cannot listen on 127.0.0.1:\(first.port)"), "\(second.output)")
        }
    }
}
