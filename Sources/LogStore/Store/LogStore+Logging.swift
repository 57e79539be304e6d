public import Foundation

extension LogStore {
    /// Logs a message. Never waits for disk: the message is queued and committed by the writer
    /// within ``Configuration/saveInterval`` (or by ``flush()``).
    ///
    /// ```swift
    /// store.storeMessage(label: "db", level: .warning, message: "slow query: \(ms) ms",
    ///                    metadata: ["table": "orders", "ms": "\(ms)"])
    /// ```
    ///
    /// - Parameters:
    ///   - createdAt: when it happened; default now.
    ///   - label: the subsystem or component (`"http"`, `"db"`).
    ///   - level: its severity; below ``Configuration/minimumLevel`` the call returns before
    ///     building `message` or `metadata`.
    ///   - message: the text, built only when the message is kept.
    ///   - metadata: structured data, stored as JSON.
    ///   - file: the source file; stored as its last path component.
    ///   - function: the function.
    ///   - line: the line.
    public nonisolated func storeMessage(
        createdAt: Date = Date(),
        label: String,
        level: Level,
        message: @autoclosure () -> String,
        metadata: @autoclosure () -> Metadata? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        guard level >= core.minimumLevel, core.isWritable else { return }
        let text = message()
        let metadata = metadata()
        // Sized from the arguments: sizing the event would copy its fields out of their box.
        let size = Event.estimatedSize(message: text, metadata: metadata)
        let event = Self.messageEvent(
            createdAt: createdAt, label: label, level: level, message: text, metadata: metadata,
            file: file, function: function, line: line)
        core.ingest(event, level: level, size: size)
    }
}

extension LogStore {
    /// Logs a message from async code: the same as
    /// ``storeMessage(createdAt:label:level:message:metadata:file:function:line:)``, except that
    /// where that call blocks its thread, this one suspends the task and frees the thread.
    ///
    /// ```swift
    /// await store.log(label: "import", level: .info, message: "row \(index) imported")
    /// ```
    ///
    /// `storeMessage` blocks in two cases: a `.synchronous` store (until the message is
    /// committed) and a full buffer under ``OverflowPolicy/waitForSpace`` (until the writer
    /// makes room). Blocking one of Swift concurrency's cooperative threads (there are as many
    /// as CPU cores) stalls every task scheduled on it, so from async code with either of those
    /// settings use this form. With the defaults it never waits, like `storeMessage`.
    ///
    /// A commit failure is not thrown: as with `storeMessage`, the message stays queued and is
    /// retried, and the failure goes to ``Configuration/onWriteError`` and ``Info``.
    ///
    /// - Parameters: the same as `storeMessage`'s.
    public nonisolated func log(
        createdAt: Date = Date(),
        label: String,
        level: Level,
        message: @autoclosure () -> String,
        metadata: @autoclosure () -> Metadata? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) async {
        guard level >= core.minimumLevel, core.isWritable else { return }
        let event = Self.messageEvent(
            createdAt: createdAt, label: label, level: level, message: message(), metadata: metadata(),
            file: file, function: function, line: line)
        await core.ingestSuspending(event)
    }

    /// Logs a message from a bridge whose metadata the writer converts (``DeferredMetadata``):
    /// ``storeMessage(createdAt:label:level:message:metadata:file:function:line:)`` for a caller
    /// whose metadata is in another API's form, which only queues it as given.
    ///
    /// - Parameters:
    ///   - metadata: made only when the message is kept; estimated, not converted, here.
    nonisolated func storeMessage(
        label: String, level: Level, message: @autoclosure () -> String,
        deferredMetadata metadata: @autoclosure () -> any DeferredMetadata,
        file: String, function: String, line: UInt
    ) {
        guard level >= core.minimumLevel, core.isWritable else { return }
        let text = message()
        let metadata = metadata()
        let size = Event.estimatedSize(message: text, metadata: nil) + metadata.estimatedSize
        let thread = CallingThread.current
        let event = Event.messageStored(
            Event.MessageCreated(
                createdAt: Date(), label: label, level: level, message: text, deferredMetadata: metadata,
                file: file, function: function, line: line, threadID: thread.id, threadName: thread.name))
        core.ingest(event, level: level, size: size)
    }

    /// The event of a logging call, stamped with the calling thread.
    private static func messageEvent(
        createdAt: Date, label: String, level: Level, message: consuming String, metadata: consuming Metadata?,
        file: String, function: String, line: UInt
    ) -> Event {
        let thread = CallingThread.current
        return Event.messageStored(
            Event.MessageCreated(
                createdAt: createdAt, label: label, level: level, message: message, metadata: metadata,
                file: file, function: function, line: line, threadID: thread.id, threadName: thread.name))
    }
}
