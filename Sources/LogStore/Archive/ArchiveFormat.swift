/// The archive file: one SQLite document (the way Pulse's `.pulse` documents are), readable with
/// any SQLite tool.
///
/// - `archive_info`: one row, the info record (``ArchiveInfo`` as JSON): a new store id, counts,
///   sizes, the sessions, the versions, and a CRC-32 per chunk and per body file.
/// - `database_chunks`: the store's database (a compacted, consistent copy), cut into pieces of
///   ``chunkSize`` bytes, each compressed with zlib on its own, so neither writing nor reading
///   ever holds more than a few chunks, and chunks compress on every core. `id` is the piece's
///   position, from 0.
/// - `blobs`: the bodies the store keeps in files (larger ones; smaller ones are inside the
///   database), by key, exactly as stored: compressed bodies are not compressed twice.
///
/// `application_id` marks the file as an archive; `user_version` is the format version.
enum ArchiveFormat {
    /// `PRAGMA application_id`: "LSAR".
    static let applicationID: Int64 = 0x4C53_4152
    /// The format version this library writes and reads.
    static let version = 1
    /// The size of a database chunk, decompressed (the last one may be smaller).
    static let chunkSize = 1 << 20
    static let schema = """
        CREATE TABLE archive_info (
            id    INTEGER PRIMARY KEY CHECK (id = 1),
            json  TEXT NOT NULL
        );
        CREATE TABLE database_chunks (
            id    INTEGER PRIMARY KEY,
            data  BLOB NOT NULL
        );
        CREATE TABLE blobs (
            id    INTEGER PRIMARY KEY,
            key   TEXT NOT NULL UNIQUE,
            data  BLOB NOT NULL
        );
        """
    /// The tables a valid archive has, and nothing else (no index but the key's, no view, no trigger).
    static let expectedObjects: Set<String> = [
        "table archive_info", "table database_chunks", "table blobs", "index sqlite_autoindex_blobs_1",
    ]
}
