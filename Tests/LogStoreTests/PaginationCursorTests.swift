import Foundation
import LogStore
import Testing

/// Messages and tasks page with cursors of their own kinds, which never parse as each other.
@Suite("Pagination cursors")
struct PaginationCursorTests {
    @Test func cursorsOfOneKindDoNotParseAsTheOther() {
        #expect(MessageQuery.Cursor("m42") == MessageQuery.Cursor(lastID: 42))
        #expect(TaskQuery.Cursor("t42") == TaskQuery.Cursor(lastID: 42))
        #expect(MessageQuery.Cursor("t42") == nil)
        #expect(TaskQuery.Cursor("m42") == nil)
        #expect(TaskQuery.Cursor(TaskQuery.Cursor(lastID: 7).description) == TaskQuery.Cursor(lastID: 7))
    }

    @Test func taskPagesFollowTheirCursorsToTheEnd() async throws {
        try await withTemporaryStore { store, _ in
            let url = URL(string: "https://api.example.com/v1/items")!
            for _ in 0..<25 {
                store.storeRequest(NetworkRequest(url: url), response: NetworkResponse(statusCode: 200), error: nil, data: nil)
            }
            try await store.flush()
            var query = TaskQuery(order: .oldestFirst, limit: 10)
            var rowIDs: [Int64] = []
            for _ in 0..<10 {
                let page = try await store.tasks(query)
                rowIDs += page.tasks.map(\.rowID)
                guard let next = page.nextCursor else { break }
                #expect(next.description.hasPrefix("t"))
                query.cursor = next
            }
            #expect(rowIDs.count == 25)
            #expect(rowIDs == rowIDs.sorted())
        }
    }

    @Test func aSweepReportKeepsItsDurationInSecondsOnDisk() throws {
        let report = LogStore.SweepReport(date: Date(timeIntervalSince1970: 0), trigger: .manual, duration: .milliseconds(1_500))
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any]
        #expect(json?["duration"] as? Double == 1.5)
        let decoded = try JSONDecoder().decode(LogStore.SweepReport.self, from: JSONEncoder().encode(report))
        #expect(decoded.duration == .milliseconds(1_500))
    }
}
