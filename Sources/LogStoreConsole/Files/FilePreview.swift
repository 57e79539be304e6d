import Foundation

/// What the browser shows of a file instead of its raw bytes.
enum FilePreview: Sendable, Equatable {
    /// UTF-8 text (valid, no NUL), cut to the byte limit when `truncated`.
    case text(String, truncated: Bool)
    /// A JSON object or array under the byte limit, pretty-printed with sorted keys.
    case json(String)
    /// An SQLite database's tables and row counts; `error` says why some or all are missing.
    case sqlite(tables: [SQLiteTableSummary], error: String?)
    /// An image (`png`, `gif`, `jpeg`, `webp`) and its pixel size.
    case image(format: String, width: Int, height: Int)
    /// Anything else.
    case binary(size: Int64)
}

extension FileBrowser {
    /// The default preview limit: 256 KiB of text is more than a browser tab shows comfortably.
    static let defaultPreviewLimit = 256 << 10
    /// The largest limit honoured (16 MiB): the bytes are held in memory, once per request.
    static let maximumPreviewLimit = 16 << 20

    /// A preview of `file`, from its first `byteLimit` bytes (an SQLite file is opened by SQLite
    /// itself, under ``SQLiteFileSummary``'s time limits).
    ///
    /// Checked in this order: the SQLite header, an image signature, UTF-8 text (JSON when the
    /// whole file is an object or array that parses), else binary. Text is decided by the bytes,
    /// never by the name: a `.log` full of NULs is binary.
    ///
    /// JSON goes through `JSONSerialization`, so numbers are shown as it reads them (integers
    /// past 2⁶³ and long decimals may lose digits); the raw download has them exactly.
    ///
    /// - Parameter byteLimit: how much is read, at most ``maximumPreviewLimit``.
    /// - Throws: ``FileAccessError/wrongKind(_:expected:)`` for a directory; a read error.
    func preview(_ file: OpenedFile, byteLimit: Int = FileBrowser.defaultPreviewLimit) throws(FileAccessError) -> FilePreview {
        guard file.kind == .regularFile else { throw .wrongKind(file.path.path, expected: "a file") }
        let limit = min(max(0, byteLimit), Self.maximumPreviewLimit)
        // One byte more than the limit tells a file of exactly `limit` bytes from a longer one,
        // whatever the size said when it was opened.
        var bytes = try file.readPrefix(limit + 1)
        let truncated = bytes.count > limit
        if truncated { bytes.removeLast(bytes.count - limit) }

        if bytes.starts(with: SQLiteFileSummary.magic) {
            let summary = sqliteSummary(file)
            return .sqlite(tables: summary.tables, error: summary.error)
        }
        if let image = ImageHeader.read(bytes) {
            return .image(format: image.format, width: image.width, height: image.height)
        }
        guard let text = Self.text(bytes, truncated: truncated) else { return .binary(size: max(file.size, Int64(bytes.count))) }
        if !truncated, let json = Self.prettyJSON(bytes) { return .json(json) }
        return .text(text, truncated: truncated)
    }

    /// The SQLite summary of `file`, opened by SQLite at the real path the walk found, and
    /// believed only if that path still names the same file once SQLite holds it.
    ///
    /// SQLite opens files by name, not descriptor, so this is the one place the browser opens
    /// a path a second time. What keeps it inside the folder: the path is the real one (links
    /// already resolved), SQLite is told to refuse a link in it (`SQLITE_OPEN_NOFOLLOW`), and,
    /// with SQLite holding the file, a fresh walk must reach the same device and inode as the
    /// descriptor checked. What is left is a file swapped in and back out between SQLite's open
    /// and that walk, and even then only table names and counts would show.
    func sqliteSummary(_ file: OpenedFile, limits: SQLiteFileSummary.Limits = SQLiteFileSummary.Limits())
        -> (tables: [SQLiteTableSummary], error: String?)
    {
        let real = file.realPath.split(separator: "/").map(String.init)
        let path = (root.realComponents + real).reduce("") { $0 + "/" + $1 }
        return SQLiteFileSummary.summarize(path: path, limits: limits) {
            do throws(FileAccessError) {
                let again = try PathResolver(root: root).open(RequestPath(checkedSegments: real))
                defer { again.close() }
                return again.identity == file.identity
            } catch {
                return false
            }
        }
    }

    /// `bytes` as text: valid UTF-8 without NUL. When the bytes were cut at the limit, a
    /// multi-byte character cut in two at the end is dropped rather than making it binary.
    static func text(_ bytes: [UInt8], truncated: Bool) -> String? {
        guard !bytes.contains(0) else { return nil }
        var end = bytes.count
        if truncated {
            // Back over at most three continuation bytes to the lead byte of the last character;
            // drop that character if the lead byte announces more bytes than follow it.
            var lead = end - 1
            while lead >= 0, lead > end - 4, bytes[lead] & 0xC0 == 0x80 { lead -= 1 }
            if lead >= 0 {
                let byte = bytes[lead]
                let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                if lead + length > end { end = lead }
            }
        }
        return String(validating: bytes[..<end], as: UTF8.self)
    }

    /// `bytes` pretty-printed if they are a JSON object or array (a lone number or string in a
    /// text file is shown as text).
    static func prettyJSON(_ bytes: [UInt8]) -> String? {
        guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        else { return nil }
        // Not JSON is a normal answer here (the file is then shown as text), not a failure to report.
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)),
            let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return String(decoding: pretty, as: UTF8.self)
    }
}
