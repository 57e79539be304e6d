import Foundation

/// A `messages` row's columns as the exports' row writers read them: from the statement itself
/// (``MessageRow``) or from a copy another thread made of it (``CopiedMessageRow``). Texts are
/// bytes valid until the next row (or until the copy's chunk is recycled).
protocol MessageColumns {
    var id: Int64 { get }
    var createdAt: Date { get }
    var level: LogStore.Level { get }
    var labelID: Int64 { get }
    /// The text's bytes (empty for NULL, as ``LogStore/Message/text`` reads it).
    var unsafeText: UnsafeBufferPointer<UInt8> { get }
    /// The stored metadata JSON; `nil` for NULL.
    var unsafeMetadataJSON: UnsafeBufferPointer<UInt8>? { get }
    var unsafeFile: UnsafeBufferPointer<UInt8>? { get }
    var unsafeFunction: UnsafeBufferPointer<UInt8>? { get }
    var line: Int? { get }
    var threadID: Int32? { get }
    /// The thread column as the thread-name lookup takes it (0 for NULL).
    var threadKey: Int64 { get }
    var sessionRowID: Int64 { get }
}

extension MessageRow: MessageColumns {}
