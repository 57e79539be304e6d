import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore sessions`: the sessions with their snapshots, as text and JSON.
@Suite struct SessionsCLITests: CLITestCase {
    @Test func sessionsListsTheDemoSessions() async throws {
        try await withTemporaryStoreURL { url in
            #expect(await logstore("demo", url.path, "--count", "90", "--sessions", "3").status == 0)
            let store = try await LogStore(storeURL: url, options: [.readonly])
            let sessions = try await store.sessions()
            try await store.close()
            #expect(sessions.count == 3)

            let run = await logstore("sessions", url.path)
            #expect(run.status == 0)
            #expect(run.output.contains("Session 3 of 3"))
            for session in sessions { #expect(run.output.contains(session.id.uuidString)) }
            for field in ["Host:", "OS:", "Kernel:", "CPU:", "Memory:", "Disk:", "Uptime:", "Interfaces:"] {
                #expect(run.output.contains(field), "missing \(field)")
            }

            let json = await logstore("sessions", url.path, "--json")
            let array = try #require(JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
            #expect(array.count == 3)
            #expect(array.first?["host"] is [String: Any])

            let filtered = await logstore("messages", url.path, "--session", sessions[1].id.uuidString, "--json")
            #expect(filtered.lines.count == 30)
        }
    }
}
