import Foundation
import LogStore
import Testing

@Suite("Connection setup and stored JSON")
struct ConnectionSetupTests {
    // Root lists any directory: the failure cannot be made for real then.
    @Test(.enabled(if: geteuid() != 0, "root can list a directory without read permission"))
    func aStoreDirectoryThatCannotBeListedIsReportedNotTakenForEmpty() async throws {
        try await withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("locked.logstore")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            // Searchable but not readable: its manifest's absence can be seen, its contents cannot.
            #expect(chmod(url.path, 0o300) == 0)
            defer { _ = chmod(url.path, 0o700) }
            let error = await #expect(throws: LogStoreError.self) {
                _ = try await LogStore(storeURL: url, options: [.create])
            }
            #expect(error?.kind == .fileSystem)
            #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("manifest.json").path))
        }
    }

    @Test func headsThatDoNotDecodeAreKeptAsTheirStoredText() async throws {
        try await withTemporaryStoreURL { url in
            try #require(SQLiteShell.isAvailable)
            let id = try await withStore(at: url) { store in
                store.storeRequest(
                    NetworkRequest(url: URL(string: "https://api.example.com/a")!),
                    response: NetworkResponse(statusCode: 200), error: nil, data: nil)
                try await store.flush()
                return try #require(try await store.tasks(TaskQuery()).tasks.first?.id)
            }
            // Another tool damages the response head.
            try SQLiteShell.run(
                url.appendingPathComponent("logs.sqlite"),
                "UPDATE task_heads SET json = 'not json' WHERE id = (SELECT response_head_id FROM tasks)")
            try await withStore(at: url, options: [.readonly]) { store in
                let details = try #require(try await store.task(id: id))
                #expect(details.response == nil)
                #expect(details.request?.url?.host == "api.example.com")
                #expect(details.undecodableJSON == ["response": "not json"])
            }
        }
    }
}
