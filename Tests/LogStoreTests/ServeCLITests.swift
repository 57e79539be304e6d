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
        let process: Process
        let port: UInt16
        let token: String
        /// What it printed before its URL, the URL line included.
        let printed: String
    }

    /// Starts `logstore serve arguments…` and reads its URL line (within 30 s).
    static func serve(_ arguments: [String]) async throws -> Served {
        try await onOwnThread {
            let child = Process()
            child.executableURL = logstore
            child.arguments = ["serve"] + arguments
            let output = Pipe()
            child.standardOutput = output
            child.standardError = output
            try child.run()
            let descriptor = output.fileHandleForReading.fileDescriptor
            var text = ""
            let giveUp = Date().addingTimeInterval(TimeScale.scaled(30))
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < giveUp {
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Console: ") }),
                    let url = URLComponents(string: String(line.dropFirst(9))),
                    let port = url.port, let token = url.queryItems?.first(where: { $0.name == "token" })?.value
                {
                    return Served(process: child, port: UInt16(port), token: token, printed: text)
                }
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 500) >= 0 || errno == EINTR else { break }
                guard poller.revents != 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                text += String(decoding: buffer[0..<count], as: UTF8.self)
            }
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            throw ConsoleClient.Failure(description: "no URL from logstore serve; it printed: \(text)")
        }
    }

    /// Sends `signal` and waits (bounded) for the exit status.
    static func stop(_ served: Served, with signal: Int32) async throws -> Int32 {
        try await onOwnThread {
            kill(served.process.processIdentifier, signal)
            let giveUp = Date().addingTimeInterval(TimeScale.scaled(20))
            while served.process.isRunning, Date() < giveUp { usleep(20_000) }
            if served.process.isRunning {
                kill(served.process.processIdentifier, SIGKILL)
                served.process.waitUntilExit()
                return -1
            }
            return served.process.terminationStatus
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
