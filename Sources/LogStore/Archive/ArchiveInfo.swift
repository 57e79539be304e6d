public import Foundation

/// What an archive holds, as its info record says: ``LogStore/archiveInfo`` of a store opened with
/// ``LogStore/init(archiveURL:limits:configuration:)``, and what `logstore open` prints.
public struct ArchiveInfo: Sendable, Hashable, Codable {
    /// One session the archive holds messages or tasks of.
    public struct Session: Sendable, Hashable, Codable {
        /// The session's id.
        public var id: UUID
        /// When its store was opened.
        public var startDate: Date
        /// The process's name.
        public var app: String
        /// The process's version, when it gave one.
        public var appVersion: String?
        /// The machine's host name.
        public var hostname: String
    }

    /// The archive format's version (the document's `PRAGMA user_version`; 1 for this library).
    public var formatVersion: Int
    /// The archive's own store id: new for every export, so an archive is never mistaken for
    /// the store it came from.
    public var storeID: UUID
    /// The id of the store it was exported from.
    public var sourceStoreID: UUID
    /// When it was exported.
    public var createdAt: Date
    /// The LogStore version that wrote it.
    public var libraryVersion: String
    /// The schema version of the database inside.
    public var schemaVersion: Int
    /// Messages inside (as ``LogStore/Info/messageCount`` counts them: not the technical
    /// messages of network tasks).
    public var messageCount: Int
    /// Network tasks inside.
    public var taskCount: Int
    /// Bodies inside (kept in the database or beside it).
    public var blobCount: Int
    /// The sessions inside, oldest first.
    public var sessions: [Session]
    /// Bytes of the database once extracted.
    public var databaseSize: Int64
    /// Bytes of the bodies kept beside the database, as stored.
    public var blobFileSize: Int64

    /// How the database is cut into compressed chunks, each with its checksum.
    var chunks: [Chunk]
    /// The bodies kept beside the database, each with its checksum.
    var blobFiles: [BlobFile]

    /// One piece of the database: `size` bytes once decompressed, `storedSize` bytes of zlib data
    /// whose CRC-32 is `crc32`.
    struct Chunk: Sendable, Hashable, Codable {
        var size: Int
        var storedSize: Int
        var crc32: UInt32
    }

    /// One body kept beside the database: its key, its size as stored and that data's CRC-32.
    struct BlobFile: Sendable, Hashable, Codable {
        var key: String
        var size: Int
        var crc32: UInt32
    }

    /// Bytes of the whole archive's contents (what extraction and lazy reads may touch).
    var contentSize: Int64 { databaseSize + blobFileSize }
}
