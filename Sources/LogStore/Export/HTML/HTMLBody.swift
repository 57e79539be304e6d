import Foundation

/// A request or response body as the page embeds it, cut at ``limit`` so one large download
/// cannot make the page unusable:
///
/// - text (valid UTF-8 without NUL bytes): `{"k":"text","n":size,"v":text,"cut":bool}`; the page
///   pretty-prints it when it parses as JSON;
/// - a PNG, JPEG, GIF or WebP image up to the limit (recognised by its signature, never by the
///   claimed content type): `{"k":"image","n":size,"f":format,"w":width,"h":height,"v":base64}`;
/// - anything else: `{"k":"binary","n":size}`, a note with the size;
/// - a body that is not in the store: `{"k":"missing","n":size,"why":reason}`.
enum HTMLBody {
    /// The most of one body the page embeds: 256 KiB. The page says when it cut one.
    static let limit = 256 << 10

    /// Writes the body (or `null` when the task has none); returns whether one was embedded.
    static func write(
        key: String?, size: Int64, isOverLimit: Bool, isRemoved: Bool, source: ExportSource, to json: inout ScriptJSON
    ) throws -> Bool {
        guard let key else {
            if isOverLimit { missing(size, "larger than the store's body size limit, not stored", to: &json) }
            else if isRemoved { missing(size, "removed by the sweep to keep the store within its size limit", to: &json) }
            else if size > 0 { missing(size, "not stored", to: &json) }
            else { json.null() }
            return false
        }
        guard let data = try source.body(forKey: key) else {
            missing(size, "no longer in the store", to: &json)
            return false
        }
        write(data, to: &json)
        return true
    }

    private static func write(_ data: Data, to json: inout ScriptJSON) {
        let bytes = [UInt8](data.prefix(limit))
        if data.count <= limit, let image = ImageSize.read(data) {
            json.raw(#"{"k":"image","n":"#)
            json.number(data.count)
            json.raw(#","f":"#)
            json.string(image.format.rawValue)
            json.raw(#","w":"#)
            json.number(image.width)
            json.raw(#","h":"#)
            json.number(image.height)
            json.raw(#","v":"#)
            json.string(data.base64EncodedString())
            json.raw("}")
        } else if let text = self.text(bytes, isCut: data.count > limit) {
            json.raw(#"{"k":"text","n":"#)
            json.number(data.count)
            json.raw(#","v":"#)
            json.string(text)
            json.raw(#","cut":"#)
            json.bool(data.count > limit)
            json.raw("}")
        } else {
            json.raw(#"{"k":"binary","n":"#)
            json.number(data.count)
            json.raw("}")
        }
    }

    /// The bytes as text when they are UTF-8 without NUL bytes. A cut body may end inside a
    /// character: its partial bytes are dropped, and a character that ends right at the cut is kept.
    private static func text(_ bytes: [UInt8], isCut: Bool) -> String? {
        guard !bytes.contains(0) else { return nil }
        var end = bytes.count
        if isCut {
            // Back off past continuation bytes (10xxxxxx), at most three, to the lead byte of the
            // last character; drop that character only when its lead byte says it is longer.
            var lead = end
            while lead > 0, end - lead < 3, bytes[lead - 1] & 0xC0 == 0x80 { lead -= 1 }
            if lead > 0, bytes[lead - 1] >= 0xC0 {
                let byte = bytes[lead - 1]
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                if lead - 1 + length > end { end = lead - 1 }
            }
        }
        return String(validating: bytes[..<end], as: UTF8.self)
    }

    private static func missing(_ size: Int64, _ reason: String, to json: inout ScriptJSON) {
        json.raw(#"{"k":"missing","n":"#)
        json.number(size)
        json.raw(#","why":"#)
        json.string(reason)
        json.raw("}")
    }
}
