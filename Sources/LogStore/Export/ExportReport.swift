public import Foundation

/// What ``LogStore/export(to:format:options:progress:)`` wrote.
public struct ExportReport: Sendable, Hashable, Codable {
    /// The file written.
    public var url: URL
    /// Its format.
    public var format: ExportFormat
    /// Messages written.
    public var messageCount: Int
    /// Network tasks written.
    public var taskCount: Int
    /// Bodies written (an archive's stored bodies; the bodies embedded in HTML or HAR).
    public var blobCount: Int
    /// Sessions the export holds.
    public var sessionCount: Int
    /// The file's size in bytes.
    public var byteCount: Int64
    /// How long the export took.
    public var duration: Duration
    /// An archive's own store id (a new one: an archive is a new store); `nil` for the other formats.
    public var storeID: UUID?

    /// Creates a report.
    public init(
        url: URL, format: ExportFormat, messageCount: Int, taskCount: Int, blobCount: Int, sessionCount: Int,
        byteCount: Int64, duration: Duration, storeID: UUID? = nil
    ) {
        self.url = url
        self.format = format
        self.messageCount = messageCount
        self.taskCount = taskCount
        self.blobCount = blobCount
        self.sessionCount = sessionCount
        self.byteCount = byteCount
        self.duration = duration
        self.storeID = storeID
    }
}
