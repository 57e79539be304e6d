import Foundation

extension LogStore {
    /// Messages matching `query`, one page at a time.
    ///
    /// Reads committed messages only: call ``flush()`` first to see what was just logged.
    ///
    /// - Throws: ``LogStoreError/closed`` after ``close()``; ``LogStoreError/database(_:)`` when SQLite fails.
    public func messages(_ query: MessageQuery) async throws -> MessagePage {
        try checkOpen()
        return try await core.read { connection in
            try MessageRows.page(query, connection: connection)
        }
    }

    /// How many messages match `query`'s filters (its order, limit and cursor are ignored).
    ///
    /// ```swift
    /// let errors = try await store.count(MessageQuery(levels: .error ... .critical))
    /// ```
    public func count(_ query: MessageQuery) async throws -> Int {
        try checkOpen()
        return try await core.read { connection in
            try MessageRows.count(query, connection: connection)
        }
    }

    /// Metadata JSON as written by the store; anything else another tool may have put there is
    /// kept as a single `_raw` string rather than lost.
    static func decodeMetadata(_ json: String?) -> Metadata {
        guard let json, !json.isEmpty else { return [:] }
        // The hand-written parser reads what the store writes; it hands the rest (rare rows of
        // other tools) to JSONDecoder, whose reading it must not change.
        if let metadata = MetadataDecoder.decode(json) { return metadata }
        return decodeMetadataWithFoundation(json)
    }

    /// The `Codable` reading of `json` (not empty): what ``decodeMetadata(_:)`` gave before
    /// ``MetadataDecoder``, and still gives for what that parser leaves alone.
    static func decodeMetadataWithFoundation(_ json: String) -> Metadata {
        // One shared decoder: a new one per row cost an allocation and setup for every message.
        if let metadata = try? StoreJSON.decoder.decode(Metadata.self, from: Data(json.utf8)) {
            return metadata
        }
        return ["_raw": .string(json)]
    }
}
