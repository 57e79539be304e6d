import Foundation
import LogStore
import Testing

/// The writer lays a batch's messages out as rows before it commits (in the background under
/// load): every message must still be stored with its own columns, after a hook changed it and
/// when a failed batch is retried in front of newer events.
@Suite("Prepared messages")
struct PreparedMessagesTests {
    /// The metadata message `index` is logged with: none, empty, or a few keys, one of them
    /// needing escapes.
    static func metadata(_ index: Int) -> LogStore.Metadata? {
        switch index % 4 {
        case 0: nil
        case 1: [:]
        default: ["index": .string(String(index)), "quote\"d": .string("line\nbreak \u{1}"), "z": .array([.string("a")])]
        }
    }

    /// Every stored message of `label`, its text (an index) paired with its metadata.
    static func stored(_ store: LogStore, label: String) async throws -> [(text: String, metadata: LogStore.Metadata)] {
        try await allMessages(store, MessageQuery(labels: [label])).map { ($0.text, $0.metadata) }
    }

    @Test func aRetriedBatchAndTheEventsBehindItKeepTheirOwnMetadata() async throws {
        var configuration = LogStore.Configuration()
        configuration.saveInterval = .milliseconds(20)
        try await withTemporaryStore(configuration: configuration) { store, _ in
            store.storeMessage(label: "m", level: .info, message: "0", metadata: Self.metadata(0))
            try await store.flush()
            try await WriteFailureTests.setFull(store, true)
            // Sure to need new pages: a few free ones (left by the store's opening, some runs)
            // took the 40 small messages alone, and nothing failed.
            store.storeMessage(label: "filler", level: .info, message: String(repeating: "f", count: 64 * 1024))
            for index in 1...40 {
                store.storeMessage(label: "m", level: .info, message: String(index), metadata: Self.metadata(index))
            }
            // Those fail and go back to the head of the buffer; the next ones queue behind them.
            let failed: Bool? = try await withinDeadline(seconds: 30) {
                while try await store.info().writeErrorCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
                return true
            }
            #expect(failed == true)
            for index in 41...80 {
                store.storeMessage(label: "m", level: .info, message: String(index), metadata: Self.metadata(index))
            }
            try await WriteFailureTests.setFull(store, false)
            let flushed: Bool? = try await withinDeadline(seconds: 30) { try await store.flush(); return true }
            #expect(flushed == true)

            let stored = try await Self.stored(store, label: "m")
            #expect(stored.map(\.text) == (0...80).map(String.init))
            let located = try await allMessages(store, MessageQuery(labels: ["m"]))
            #expect(located.allSatisfy { $0.file == "PreparedMessagesTests.swift" && $0.function != nil && $0.line != nil })
            for message in stored {
                let index = Int(message.text) ?? -1
                #expect(message.metadata == Self.metadata(index) ?? [:], "message \(index)")
            }
        }
    }

    @Test func theMetadataAHookReturnsIsTheOneStored() async throws {
        var configuration = LogStore.Configuration()
        configuration.willHandleEvent = { event in
            guard case .messageStored(var message) = event else { return event }
            let index = Int(message.message) ?? 0
            if index % 5 == 0 { return nil }
            message.metadata = index % 2 == 0 ? nil : ["hooked": .string(String(index))]
            return .messageStored(message)
        }
        try await withTemporaryStore(configuration: configuration) { store, _ in
            for index in 1...60 {
                store.storeMessage(label: "h", level: .info, message: String(index), metadata: Self.metadata(index))
            }
            try await store.flush()
            let stored = try await Self.stored(store, label: "h")
            #expect(stored.map(\.text) == (1...60).filter { $0 % 5 != 0 }.map(String.init))
            for message in stored {
                let index = Int(message.text) ?? -1
                let expected: LogStore.Metadata = index % 2 == 0 ? [:] : ["hooked": .string(String(index))]
                #expect(message.metadata == expected, "message \(index)")
            }
        }
    }

    @Test func metadataOverTheLimitIsCutAsBefore() async throws {
        try await withTemporaryStore { store, _ in
            let long = String(repeating: "é", count: LogStore.maxMetadataBytes)
            store.storeMessage(label: "cut", level: .info, message: "1", metadata: ["long": .string(long)])
            store.storeMessage(label: "cut", level: .info, message: "2", metadata: ["short": .string("kept")])
            try await store.flush()
            let stored = try await Self.stored(store, label: "cut")
            #expect(stored.count == 2)
            #expect(stored.first?.metadata.keys.sorted() == ["_truncated"])
            #expect(stored.last?.metadata == ["short": .string("kept")])
        }
    }

    /// What one thread logs in ``everyColumnIsStoredAsLogged``: message `index` of `thread`.
    struct Logged: Equatable {
        var label: String
        var level: LogStore.Level
        var file: String
        var function: String
        var line: Int
        var metadata: LogStore.Metadata

        init(thread: Int, index: Int) {
            label = ["http", "db", "auth", "a.much.longer.label.than.fifteen.bytes"][index % 4]
            level = LogStore.Level.allCases[(index + thread) % LogStore.Level.allCases.count]
            file = index % 3 == 0 ? "Main.swift" : "/build/Sources/App\(thread)/Handler\(index % 5).swift"
            function = index % 2 == 0 ? "run()" : "handle(request:context:) with a long name"
            line = index * 7 + thread
            metadata = index % 3 == 1 ? [:] : ["thread": .string(String(thread)), "i": .string(String(index))]
        }
    }

    @Test func everyColumnIsStoredAsLogged() async throws {
        try await withTemporaryStore { store, _ in
            let threads = 3
            let perThread = 400
            try await withThrowingTaskGroup(of: Void.self) { group in
                for thread in 0..<threads {
                    group.addTask {
                        try await onOwnThread {
                            try nameCurrentThread("worker-\(thread)")
                            for index in 0..<perThread {
                                let logged = Logged(thread: thread, index: index)
                                store.storeMessage(
                                    label: logged.label, level: logged.level, message: "\(thread):\(index)",
                                    metadata: logged.metadata, file: logged.file, function: logged.function,
                                    line: UInt(logged.line))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            try await store.flush()
            let stored = try await allMessages(store, MessageQuery())
            #expect(stored.count == threads * perThread)
            for message in stored {
                let parts = message.text.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 2 else {
                    Issue.record("unexpected text \(message.text)")
                    continue
                }
                let expected = Logged(thread: parts[0], index: parts[1])
                let file = expected.file.split(separator: "/").last.map(String.init) ?? expected.file
                #expect(message.label == expected.label, "\(message.text)")
                #expect(message.level == expected.level, "\(message.text)")
                #expect(message.file == file, "\(message.text)")
                #expect(message.function == expected.function, "\(message.text)")
                #expect(message.line == expected.line, "\(message.text)")
                #expect(message.metadata == expected.metadata, "\(message.text)")
                #expect(message.threadName == "worker-\(parts[0])", "\(message.text)")
            }
        }
    }

    /// A thread's name changes within one batch (a hook renames it, or the kernel gives a new
    /// thread an exited one's id): the last name is the one recorded.
    @Test func aThreadRenamedWithinABatchKeepsItsLastName() async throws {
        var configuration = LogStore.Configuration()
        configuration.saveInterval = .seconds(30)
        configuration.isGroupCommitEnabled = false
        configuration.willHandleEvent = { event in
            guard case .messageStored(var message) = event else { return event }
            let index = Int(message.message) ?? 0
            message.threadName = index < 5 ? "before" : index < 8 ? nil : index < 12 ? "after" : "last"
            return .messageStored(message)
        }
        try await withTemporaryStore(configuration: configuration) { store, _ in
            for index in 0..<15 { store.storeMessage(label: "t", level: .info, message: String(index)) }
            try await store.flush()
            let stored = try await allMessages(store, MessageQuery(labels: ["t"]))
            #expect(stored.count == 15)
            #expect(Set(stored.map(\.threadName)) == ["last"])
        }
    }

    @Test func aMessageOverTheLimitIsCut() async throws {
        try await withTemporaryStore { store, _ in
            let long = String(repeating: "ü", count: LogStore.maxMessageBytes / 2 + 10)
            store.storeMessage(label: "long", level: .info, message: long)
            store.storeMessage(label: "long", level: .info, message: "short")
            try await store.flush()
            let stored = try await allMessages(store, MessageQuery(labels: ["long"]))
            #expect(stored.count == 2)
            let cut = stored.first?.text ?? ""
            let kept = cut.prefix(while: { $0 == "ü" })
            #expect(kept.utf8.count <= LogStore.maxMessageBytes && kept.utf8.count > LogStore.maxMessageBytes - 2)
            #expect(cut.hasSuffix("… [truncated \(long.utf8.count - kept.utf8.count) bytes]"))
            #expect(stored.last?.text == "short")
        }
    }
}

/// Names the calling thread, and waits (bounded) until the kernel shows the name: a thread
/// Foundation has just started sometimes kept the name it inherited from the thread that started
/// it (a libdispatch worker's) when `Thread.current.name` was set once (1 run in 10).
func nameCurrentThread(_ name: String) throws {
    for _ in 0..<200 {
        Thread.current.name = name
        let shown = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        if shown.trimmingCharacters(in: .newlines) == String(name.prefix(15)) { return }
        usleep(1_000)
    }
    throw ThreadNameNotSet(name: name)
}

struct ThreadNameNotSet: Error {
    let name: String
}

