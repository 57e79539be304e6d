import Dispatch
import Foundation

/// `/api/files/{path}` and `/files/{path}`: the file browser's listing or preview as JSON, and
/// a file's bytes. The path after the prefix goes to ``FileBrowser`` still percent-encoded: it
/// decodes exactly once (decoding here too would let `%252e%252e` through as `..`).
struct FilesAPI: Sendable {
    let browser: FileBrowser

    /// The files of `directory`, or nil without one (a console showing no files).
    /// - Throws: ``ConsoleError/filesDirectory(_:_:)`` when it is missing or not a directory.
    static func serving(_ directory: URL?) throws(ConsoleError) -> FilesAPI? {
        guard let directory else { return nil }
        do {
            return FilesAPI(browser: try FileBrowser(root: directory))
        } catch {
            throw .filesDirectory(directory.path, String(describing: error))
        }
    }

    /// A directory's entries, or a file's preview.
    func describe(_ rawPath: String, _ parameters: QueryParameters) async throws(ConsoleRequestError) -> HTTPResponse {
        let browser = browser
        let path = Self.relative(rawPath)
        // Walking, listing and previewing block (an SQLite preview up to ~2 s): off the pool.
        let result: Result<HTTPResponse, FileAccessError> = await Self.offPool {
            do throws(FileAccessError) {
                let file = try browser.entry(at: path)
                defer { file.close() }
                if file.kind == .directory {
                    let listing = try browser.listing(file)
                    return .success(JSONBody.response(Listing(file.path, listing)))
                }
                return .success(JSONBody.response(Described(file, preview: try browser.preview(file))))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let response): return response
        case .failure(let error): throw Self.requestError(error)
        }
    }

    /// A file's bytes, as an attachment (an `.html` or `.svg` in the directory must never run
    /// script on the console's origin), with `Range` support.
    func download(_ request: HTTPRequest, _ rawPath: String) throws(ConsoleRequestError) -> HTTPResponse {
        let file: OpenedFile
        do {
            file = try browser.entry(at: Self.relative(rawPath))
        } catch {
            throw Self.requestError(error)
        }
        guard file.kind == .regularFile else {
            file.close()
            throw .badRequest("\(file.path.path) is a directory: its listing is at /api/files/")
        }
        let name = file.path.segments.last ?? "file"
        return try RangedBody.response(
            request, length: file.size, etag: "\"\(file.identity.inode)-\(file.size)-\(Int64(file.modified.timeIntervalSince1970 * 1000))\"",
            headers: [
                ("Content-Type", "application/octet-stream"),
                ("Content-Disposition", "attachment; filename*=UTF-8''\(PercentDecoding.encode(name))"),
                ("Content-Security-Policy", "sandbox"),
            ],
            read: { offset, count in
                var bytes = [UInt8](repeating: 0, count: count)
                let read = try bytes.withUnsafeMutableBytes { buffer in try file.read(into: buffer, at: offset) }
                bytes.removeLast(count - read)
                return bytes
            })
    }

    /// The path under the route without its leading `/` and one trailing `/` (links to
    /// directories may end in one).
    private static func relative(_ rawPath: String) -> String {
        var path = Substring(rawPath)
        if path.first == "/" { path = path.dropFirst() }
        if path.last == "/" { path = path.dropLast() }
        return String(path)
    }

    private static func requestError(_ error: FileAccessError) -> ConsoleRequestError {
        switch error.category {
        case .badRequest: .badRequest(error.description)
        case .forbidden: .forbidden(error.description)
        case .notFound: .notFound(error.description)
        case .failed: .failed(error.description)
        }
    }

    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }

    /// A directory as the API sends it.
    struct Listing: Encodable {
        var path: String
        var entries: [Entry]
        var omitted: Int

        init(_ path: RequestPath, _ listing: FileListing) {
            self.path = path.path
            entries = listing.entries.map(Entry.init)
            omitted = listing.omitted
        }
    }

    /// One entry: `kind` is `directory`, `file`, `link` (to a file or, with `directory`, a
    /// directory inside), `other` or `unreachable` (with `reason`); `path` is what to request,
    /// percent-encoded, absent when it cannot be opened.
    struct Entry: Encodable {
        var name: String
        var kind: String
        var directory: Bool
        var path: String?
        var size: Int64?
        var modified: Date?
        var reason: String?

        init(_ entry: FileEntry) {
            name = entry.name
            directory = entry.isDirectoryLike
            switch entry.kind {
            case .directory: kind = "directory"
            case .file: kind = "file"
            case .symlink: kind = "link"
            case .other: kind = "other"
            case .unreachable(let error):
                kind = "unreachable"
                reason = error.description
            }
            path = entry.path.map { $0.segments.map(PercentDecoding.encode).joined(separator: "/") }
            size = entry.size
            modified = entry.modified
        }
    }

    /// A file as the API sends it, with its preview.
    struct Described: Encodable {
        var name: String
        var path: String
        var size: Int64
        var modified: Date
        var preview: Preview

        init(_ file: OpenedFile, preview: FilePreview) {
            name = file.path.segments.last ?? ""
            path = file.path.segments.map(PercentDecoding.encode).joined(separator: "/")
            size = file.size
            modified = file.modified
            self.preview = Preview(preview)
        }
    }

    /// One of `text` (with `truncated`), `json`, `tables` (with `error`), `image` or `binary`.
    struct Preview: Encodable {
        var text: String?
        var truncated: Bool?
        var json: String?
        var tables: [Table]?
        var error: String?
        var image: Image?
        var binary: Int64?

        struct Table: Encodable {
            var name: String
            var rows: Int?
        }

        struct Image: Encodable {
            var format: String
            var width: Int
            var height: Int
        }

        init(_ preview: FilePreview) {
            switch preview {
            case .text(let text, let truncated):
                self.text = text
                self.truncated = truncated
            case .json(let json): self.json = json
            case .sqlite(let tables, let error):
                self.tables = tables.map { Table(name: $0.name, rows: $0.rows) }
                self.error = error
            case .image(let format, let width, let height): image = Image(format: format, width: width, height: height)
            case .binary(let size): binary = size
            }
        }
    }
}
