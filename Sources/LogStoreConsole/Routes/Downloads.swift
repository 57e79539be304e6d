import Foundation
import Glibc
import LogStore
import Synchronization

/// `/download`: the current filters as a file — an archive (`format=archive`, the default, which
/// `logstore open` and ``LogStore/init(archiveURL:limits:configuration:)`` read), `ndjson`,
/// `text`, `html` or `har` (tasks). The store keeps logging meanwhile: the export reads one
/// snapshot.
///
/// Each download is exported whole into the console's scratch directory first, so it goes out
/// with its `Content-Length` (a browser shows progress) and an `ETag`; a client that lost the
/// connection resumes with `Range` and `If-Range` from the same file, kept for ten minutes (the
/// newest four). `what=tasks` exports the tasks of the task filters instead of messages,
/// `what=all` both.
final class Downloads: Sendable {
    let store: LogStore
    let directory: URL
    /// Finished exports by ETag, newest last.
    private let finished = Mutex<[Finished]>([])
    static let keptFor: Duration = .seconds(600)
    static let keptCount = 4

    /// An export kept for resumption.
    private struct Finished {
        var etag: String
        var url: URL
        var length: Int64
        var filename: String
        var madeAt: ContinuousClock.Instant
    }

    /// `directory` must exist and belong to this console alone.
    init(store: LogStore, directory: URL) {
        self.store = store
        self.directory = directory
    }

    func response(_ request: HTTPRequest, _ parameters: QueryParameters) async throws(ConsoleRequestError) -> HTTPResponse {
        let file: Finished
        if let etag = request.header("If-Range"), request.header("Range") != nil, let kept = kept(etag) {
            file = kept
        } else {
            file = try await export(parameters)
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: file.url)
        } catch {
            throw .failed("the export \(file.url.lastPathComponent) could not be read: \(error)")
        }
        let reader = HandleReader(handle)
        return try RangedBody.response(
            request, length: file.length, etag: file.etag,
            headers: [
                ("Content-Type", "application/octet-stream"),
                ("Content-Disposition", "attachment; filename=\"\(file.filename)\""),
            ],
            read: { offset, count in try reader.read(at: offset, count: count) })
    }

    /// Removes every kept export (the console is stopping).
    func removeAll() {
        let files = finished.withLock { files in
            defer { files = [] }
            return files
        }
        // The scratch directory goes next; what stays is the system's temporary-file cleanup's.
        for file in files { try? FileManager.default.removeItem(at: file.url) }
    }

    private func export(_ parameters: QueryParameters) async throws(ConsoleRequestError) -> Finished {
        let format: ExportFormat
        switch parameters.value("format") ?? "archive" {
        case "archive": format = .archive
        case "ndjson": format = .ndjson
        case "text": format = .text
        case "html": format = .html
        case "har": format = .har
        case let other: throw .badRequest("format is archive, ndjson, text, html or har, not \(other)")
        }
        let messages = try MessageFilters.query(parameters)
        var options = ExportOptions(messages: messages, tasks: nil)
        switch parameters.value("what") ?? (format == .har ? "tasks" : "messages") {
        case "messages": break
        case "tasks": options = ExportOptions(sessions: messages.sessions, since: messages.since, until: messages.until, messages: nil)
        case "all": options.tasks = TaskQuery()
        case let other: throw .badRequest("what is messages, tasks or all, not \(other)")
        }
        let etag = "\"\(ConsoleAccess.makeToken())\""
        let stamp = Date().formatted(.iso8601.year().month().day().dateSeparator(.omitted).time(includingFractionalSeconds: false).timeSeparator(.omitted))
        let filename = "logstore-\(stamp).\(format.fileExtension)"
        let url = directory.appendingPathComponent(etag.trimmingCharacters(in: ["\""]) + "." + format.fileExtension)
        do {
            _ = try await store.export(to: url, format: format, options: options)
        } catch let error as LogStoreError {
            if error.kind == .invalidArgument { throw .badRequest(error.reason ?? error.description) }
            throw .failed("the export failed: \(error)")
        } catch {
            throw .failed("the export failed: \(error)")
        }
        var status = stat()
        guard stat(url.path, &status) == 0 else { throw .failed("the export \(url.lastPathComponent) is gone (errno \(errno))") }
        let length = Int64(status.st_size)
        let file = Finished(etag: etag, url: url, length: length, filename: filename, madeAt: .now)
        keep(file)
        return file
    }

    private func keep(_ file: Finished) {
        let expired = finished.withLock { files in
            files.append(file)
            let now = ContinuousClock.now
            let expired = files.enumerated().filter { index, kept in
                now - kept.madeAt > Self.keptFor || index < files.count - Self.keptCount
            }.map(\.element)
            files.removeAll { kept in expired.contains { $0.etag == kept.etag } }
            return expired
        }
        // A download still reading an expired file keeps its descriptor: unlinking is safe.
        for file in expired { unlink(file.url.path) }
    }

    private func kept(_ etag: String) -> Finished? {
        finished.withLock { files in
            files.last { $0.etag == etag && ContinuousClock.now - $0.madeAt <= Self.keptFor }
        }
    }
}

/// Reads a file at offsets from any thread: `pread` needs no shared position.
final class HandleReader: Sendable {
    private let handle: FileHandle

    init(_ handle: FileHandle) { self.handle = handle }

    deinit { try? handle.close() }

    /// Up to `count` bytes at `offset`; fewer at the end.
    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { buffer in
            pread(handle.fileDescriptor, buffer.baseAddress, count, off_t(offset))
        }
        guard read >= 0 else { throw ConsoleRequestError.failed("reading failed (errno \(errno))") }
        bytes.removeLast(count - read)
        return bytes
    }
}
