import Foundation
import LogStore
import Testing

/// With ``HistoryConfiguration/retentionGuard``, the age sweep keeps the messages and tasks a
/// required author has not consumed yet (from the lowest such id on); without it, or for the
/// size limit, they go.
@Suite("History retention guard")
struct HistoryRetentionGuardTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let old = now.addingTimeInterval(-2 * 3_600)
    static let url = URL(string: "https://api.example.com/orders")!

    static func configuration(
        _ author: String, retentionGuard: Bool = true, sizeLimit: Int64? = nil
    ) -> LogStore.Configuration {
        var configuration = LogStore.Configuration()
        configuration.overflowPolicy = .waitForSpace
        configuration.maxAge = .seconds(3_600)
        if let sizeLimit { configuration.sizeLimit = sizeLimit }
        configuration.timeSource = LogStore.TimeSource(now: { now }, sleep: { try await Task.sleep(for: $0) })
        configuration.history = HistoryConfiguration(
            currentAuthor: author, retentionGuard: retentionGuard)
        return configuration
    }

    static func logOld(_ store: LogStore, _ label: String, count: Int, padding: Int = 0) {
        let text = String(repeating: "p", count: padding)
        for i in 0..<count { store.storeMessage(createdAt: old, label: label, level: .info, message: "\(label) \(i)\(text)") }
    }

    /// The server logs old rows before the viewer registers (its cursor starts past them: they
    /// are not its to consume; the server's configuration does not name it) and after
    /// (unconsumed), then sweeps.
    static func sweepWithAViewer(
        _ server: LogStore.Configuration, padding: Int = 0
    ) async throws -> (labels: [String: Int], tasks: Int, removedMessages: Int) {
        try await withTemporaryStoreURL { url in
            let store = try await LogStore(storeURL: url, options: [.create], configuration: server)
            Self.logOld(store, "before", count: 10, padding: padding)
            try await store.flush()
            let viewer = try await LogStore(storeURL: url, options: [.create], configuration: Self.configuration("viewer"))
            do {
                Self.logOld(store, "after", count: 10, padding: padding)
                store.storeRequest(
                    NetworkRequest(url: Self.url), response: NetworkResponse(url: Self.url, statusCode: 200), error: nil,
                    data: nil, createdAt: Self.old)
                try await store.flush()
                // Opened without `.sweep`: this is the only sweep.
                let removedMessages = try await store.sweep().removedMessages
                let messages = try await allMessages(store)
                let labels = Dictionary(grouping: messages.filter { $0.label != "network" }, by: \.label).mapValues(\.count)
                let tasks = try await store.info().taskCount
                try await viewer.close()
                try await store.close()
                return (labels, tasks, removedMessages)
            } catch {
                try? await viewer.close()
                try? await store.close()
                throw error
            }
        }
    }

    @Test func theAgeSweepKeepsWhatAConsumerHasNotSeen() async throws {
        let result = try await Self.sweepWithAViewer(Self.configuration("server"))
        // What the viewer registered after is all it could have missed; it stays however old.
        #expect(result.labels == ["after": 10])
        #expect(result.tasks == 1)
        #expect(result.removedMessages == 10)
    }

    @Test func withoutTheGuardTheAgeSweepDeletesWhatIsOld() async throws {
        let result = try await Self.sweepWithAViewer(Self.configuration("server", retentionGuard: false))
        #expect(result.labels.isEmpty)
        #expect(result.tasks == 0)
    }

    @Test func theSizeSweepIgnoresTheGuard() async throws {
        // Old rows kept by the guard from the age sweep, then trimmed for size all the same.
        let result = try await Self.sweepWithAViewer(Self.configuration("server", sizeLimit: 200_000), padding: 10_000)
        #expect(result.labels["before"] == nil)
        #expect((result.labels["after"] ?? 0) < 10)
    }
}
