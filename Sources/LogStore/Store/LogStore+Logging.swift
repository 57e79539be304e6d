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
        guard level >= core.minimumLevel, core.writer != nil else { return }
        let thread = CallingThread.current
        let event = Event.messageStored(
            Event.MessageCreated(
                createdAt: createdAt, label: label, level: level, message: message(), metadata: metadata(),
                file: file, function: function, line: line, threadID: thread.id, threadName: thread.name))
        core.ingest(event)
    }
}
