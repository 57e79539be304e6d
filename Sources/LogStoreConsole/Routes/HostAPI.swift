import Foundation
import Glibc
import LogStore

/// `/api/host`, `/api/sessions`, `/api/info` and `/api/history`: the machine now, the sessions
/// with what changed on their host, the store's figures, and the change history's authors.
struct HostAPI: Sendable {
    let store: LogStore

    /// The machine and this process as they are now (memory, disk free, uptime, resident
    /// memory), with the load averages: the page polls it.
    func host() -> HTTPResponse {
        var load = [Double](repeating: 0, count: 3)
        let loads = getloadavg(&load, 3)
        return JSONBody.response(
            Now(
                host: HostSnapshot.current(volume: store.storeURL), process: AppSnapshot.current(version: nil),
                load: loads == 3 ? load : nil, time: Date()))
    }

    /// Every session, oldest first, each with its host and what changed on it since the
    /// session before (`hostChanges`: "kernel changed since the previous session").
    func sessions() async throws(ConsoleRequestError) -> HTTPResponse {
        JSONBody.response(try await ask { try await store.sessions() })
    }

    /// What `logstore info` prints.
    func info() async throws(ConsoleRequestError) -> HTTPResponse {
        JSONBody.response(try await ask { try await store.info() })
    }

    /// What `logstore history` prints: the authors, their cursors and what is behind.
    func history() async throws(ConsoleRequestError) -> HTTPResponse {
        JSONBody.response(try await ask { try await store.historyStatus() })
    }

    /// The machine now.
    struct Now: Encodable {
        var host: HostSnapshot
        var process: AppSnapshot
        /// The 1, 5 and 15-minute load averages.
        var load: [Double]?
        var time: Date
    }
}
