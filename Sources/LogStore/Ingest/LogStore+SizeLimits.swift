extension LogStore {
    /// The most bytes of a message's text the store keeps: 1 MiB (1,048,576) of UTF-8.
    ///
    /// Longer text is cut at a character boundary at or below this size and ends with a marker
    /// saying how much was cut, for example `"… [truncated 2097152 bytes]"`. One oversized
    /// message must not fail the batch it was committed with, nor bloat a store meant for logs.
    public static let maxMessageBytes = 1 << 20

    /// The most bytes of a message's metadata, as the JSON object the store writes: 1 MiB.
    ///
    /// Larger metadata is replaced by one key, `"_truncated"`, whose string value is the start
    /// of the JSON (cut at a character boundary at or below this size) followed by a marker such
    /// as `"… [truncated 2097152 bytes]"`; the stored text stays a JSON object, so
    /// `json_extract` and ``Message/metadata`` still read it.
    public static let maxMetadataBytes = 1 << 20
}

/// Cutting oversized text to a size cap, on the writer's thread.
enum SizeCap {
    /// The marker appended to text cut by `count` bytes.
    static func marker(cutBytes count: Int) -> String {
        "… [truncated \(count) bytes]"
    }

    /// `utf8` when it fits in `limit` bytes; otherwise its longest prefix of whole characters
    /// within `limit` bytes, followed by the marker.
    static func truncated(_ utf8: UnsafeRawBufferPointer, limit: Int) -> [UInt8]? {
        guard utf8.count > limit else { return nil }
        var end = max(0, limit)
        // Continuation bytes are 0b10xxxxxx: step back to the first byte of a character.
        while end > 0 && utf8[end] & 0xC0 == 0x80 { end -= 1 }
        var output = Array(utf8[..<end])
        output.append(contentsOf: marker(cutBytes: utf8.count - end).utf8)
        return output
    }

    /// Metadata JSON over `limit` bytes, replaced by `{"_truncated": "<its start>… [truncated N bytes]"}`.
    static func truncatedMetadata(_ json: UnsafeRawBufferPointer, limit: Int) -> [UInt8]? {
        guard let cut = truncated(json, limit: limit) else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(cut.count + 32)
        output.append(contentsOf: #"{"_truncated":"#.utf8)
        MetadataJSON.write(String(decoding: cut, as: UTF8.self), to: &output)
        output.append(UInt8(ascii: "}"))
        return output
    }
}
