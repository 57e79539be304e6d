#if SwiftLog
import Foundation
import LogStore
import Logging
import Testing

/// `LogStoreLogHandler` through swift-log's `Logger`, read back with the store's public query API.
@Suite("swift-log handler")
struct SwiftLogHandlerTests {
    struct DiskFull: Error, CustomStringConvertible {
        var description: String { "no space left on /var/lib/app" }
    }

    static func logger(_ label: String, _ store: LogStore, provider: Logger.MetadataProvider? = nil) -> Logger {
        Logger(label: label) { label in
            LogStoreLogHandler(label: label, store: store, logLevel: .trace, metadataProvider: provider)
        }
    }

    /// Every message stored so far, oldest first.
    static func messages(_ store: LogStore, _ query: MessageQuery = MessageQuery()) async throws -> [LogStore.Message] {
        try await store.flush()
        var query = query
        query.order = .oldestFirst
        return try await store.messages(query).messages
    }

    @Test func copiesAreValues() async throws {
        try await withTemporaryStore { store, _ in
            var original = Logger(label: "jobs", factory: LogStoreLogHandler.factory(store: store))
            original[metadataKey: "worker"] = "1"
            var copy = original
            copy.logLevel = .trace
            copy[metadataKey: "worker"] = "2"
            #expect(original.logLevel == .info)
            #expect(original[metadataKey: "worker"] == "1")

            original.debug("original debug")      // below .info: not passed on
            original.info("from the original")
            copy.debug("from the copy")
            let stored = try await Self.messages(store)
            #expect(stored.map(\.text) == ["from the original", "from the copy"])
            #expect(stored.map { $0.metadata["worker"] } == ["1", "2"])
            #expect(stored.allSatisfy { $0.label == "jobs" })
        }
    }

    @Test func metadataMergesHandlerThenProviderThenCall() async throws {
        try await withTemporaryStore { store, _ in
            let provider = Logger.MetadataProvider { ["provided": "p", "shared": "from the provider", "call": "p"] }
            var logger = Self.logger("http", store, provider: provider)
            logger[metadataKey: "handler"] = "h"
            logger[metadataKey: "shared"] = "from the handler"
            logger[metadataKey: "call"] = "h"
            logger.info("merged", metadata: ["call": "from the call"])

            let metadata = try #require(try await Self.messages(store).first).metadata
            #expect(metadata["handler"] == "h")
            #expect(metadata["provided"] == "p")
            #expect(metadata["shared"] == "from the provider")
            #expect(metadata["call"] == "from the call")
        }
    }

    @Test func nestedMetadataStaysNestedAndQueryable() async throws {
        try await withTemporaryStore { store, _ in
            let logger = Self.logger("auth", store)
            logger.notice("signed in", metadata: [
                "user": ["id": "42", "roles": ["admin", "ops"], "plan": .stringConvertible(7)],
                "tags": [["k": "v"], "plain"],
            ])
            logger.notice("someone else", metadata: ["user": ["id": "7"]])

            let found = try await Self.messages(store, MessageQuery(metadata: [.equals(["user", "id"], "42")]))
            let message = try #require(found.first)
            #expect(found.count == 1)
            #expect(message.metadata["user"] == ["id": "42", "roles": ["admin", "ops"], "plan": "7"])
            #expect(message.metadata["tags"] == [["k": "v"], "plain"])
            let roles = try await Self.messages(store, MessageQuery(metadata: [.exists(["user", "roles"])]))
            #expect(roles.map(\.text) == ["signed in"])
        }
    }

    @Test func sourceIsAQueryableMetadataKey() async throws {
        try await withTemporaryStore { store, _ in
            let logger = Self.logger("billing", store)
            logger.info("charged", source: "Payments")
            logger.info("defaulted")
            logger.info("own key", metadata: ["source": "webhook"], source: "Payments")

            let payments = try await Self.messages(
                store, MessageQuery(metadata: [.equals(LogStoreLogHandler.sourceMetadataKey, "Payments")]))
            #expect(payments.map(\.text) == ["charged"])
            // Without a source swift-log names the caller's module.
            let module = try await Self.messages(store, MessageQuery(metadata: [.equals("source", "LogStoreTests")]))
            #expect(module.map(\.text) == ["defaulted"])
            let own = try await Self.messages(store, MessageQuery(metadata: [.equals("source", "webhook")]))
            #expect(own.map(\.text) == ["own key"])
        }
    }

    @Test func fileFunctionAndLineAreTheSourceLocation() async throws {
        try await withTemporaryStore { store, _ in
            let logger = Self.logger("db", store)
            let line = #line + 1
            logger.warning("slow query")

            let message = try #require(try await Self.messages(store).first)
            #expect(message.file == "SwiftLogHandlerTests.swift")
            #expect(message.function == "fileFunctionAndLineAreTheSourceLocation()")
            #expect(message.line == line)
            let byFile = try await Self.messages(store, MessageQuery(files: ["SwiftLogHandlerTests.swift"]))
            #expect(byFile.count == 1)
        }
    }

    @Test func anErrorIsKeptAsMetadata() async throws {
        try await withTemporaryStore { store, _ in
            let logger = Self.logger("disk", store)
            logger.error("write failed", error: DiskFull(), metadata: ["path": "/var/lib/app/db"])
            logger.error("no error passed")

            let type = String(reflecting: DiskFull.self)
            let found = try await Self.messages(
                store, MessageQuery(metadata: [.equals(LogStoreLogHandler.errorTypeMetadataKey, type)]))
            let message = try #require(found.first)
            #expect(found.count == 1)
            #expect(message.metadata["error.message"] == "no space left on /var/lib/app")
            #expect(message.metadata["path"] == "/var/lib/app/db")
            #expect(type.hasSuffix("DiskFull"))
            let without = try await Self.messages(store, MessageQuery(metadata: [.exists("error.message")]))
            #expect(without.count == 1)
        }
    }

    @Test func levelsMapOneToOne() async throws {
        try await withTemporaryStore { store, _ in
            let logger = Self.logger("levels", store)
            let levels: [Logger.Level] = [.trace, .debug, .info, .notice, .warning, .error, .critical]
            #expect(levels == Logger.Level.allCases)
            for level in levels {
                logger.log(level: level, "at \(level.rawValue)")
            }
            let stored = try await Self.messages(store)
            #expect(stored.map(\.level) == LogStore.Level.allCases)
            #expect(stored.map(\.level.name) == levels.map(\.rawValue))
            #expect(LogStore.Level.allCases.map(Logger.Level.init) == levels)
        }
    }

    @Test func theStoresMinimumLevelStillApplies() async throws {
        var configuration = LogStore.Configuration()
        configuration.minimumLevel = .warning
        try await withTemporaryStore(configuration: configuration) { store, _ in
            let logger = Self.logger("quiet", store)
            logger.info("dropped by the store")
            logger.error("kept")
            let texts = try await Self.messages(store).map(\.text)
            #expect(texts == ["kept"])
        }
    }
}
#endif
