/// A `Range: bytes=…` request header, one range (what resuming a download asks for); several
/// ranges are answered with the whole body, as RFC 9110 allows.
struct ByteRange: Equatable {
    /// The first byte sent.
    var first: Int64
    /// The last byte sent.
    var last: Int64

    /// How many bytes.
    var count: Int64 { last - first + 1 }

    /// The range `header` asks of a body of `length` bytes; nil to send the whole body (no
    /// header, several ranges, or a syntax this does not read).
    /// - Throws: ``ConsoleRequestError/rangeNotSatisfiable(length:)`` for a range past the end.
    static func parse(_ header: String?, length: Int64) throws(ConsoleRequestError) -> ByteRange? {
        guard let header, header.hasPrefix("bytes=") else { return nil }
        let spec = header.dropFirst(6).trimmingSpaces
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let start = spec[..<dash].trimmingSpaces
        let end = spec[spec.index(after: dash)...].trimmingSpaces
        if start.isEmpty {
            // The last `end` bytes.
            guard let suffix = Int64(end), suffix >= 0 else { return nil }
            guard suffix > 0, length > 0 else { throw .rangeNotSatisfiable(length: length) }
            return ByteRange(first: max(0, length - suffix), last: length - 1)
        }
        guard let first = Int64(start), first >= 0 else { return nil }
        guard first < length else { throw .rangeNotSatisfiable(length: length) }
        if end.isEmpty { return ByteRange(first: first, last: length - 1) }
        guard let last = Int64(end), last >= first else { return nil }
        return ByteRange(first: first, last: min(last, length - 1))
    }
}

/// Streams a file-like body (a finished export, a browsed file) with `Content-Length`,
/// `Accept-Ranges` and, for a `Range` request, 206 and the part asked for.
enum RangedBody {
    /// Read at most this much at a time: memory per download stays bounded.
    static let chunkSize = 64 * 1024

    /// The response for `request` of a body of `length` bytes read by `read(offset, count)`;
    /// `headers` are the route's own (type, disposition, ETag). `If-Range` that names another
    /// ETag gets the whole body.
    static func response(
        _ request: HTTPRequest, length: Int64, etag: String?, headers: [(name: String, value: String)],
        read: @escaping @Sendable (_ offset: Int64, _ count: Int) throws -> [UInt8]
    ) throws(ConsoleRequestError) -> HTTPResponse {
        var range = try ByteRange.parse(request.header("Range"), length: length)
        if let ifRange = request.header("If-Range"), ifRange != etag { range = nil }
        var fields = ResponseHeaders.common + headers + [("Accept-Ranges", "bytes")]
        if let etag { fields.append(("ETag", etag)) }
        let first = range?.first ?? 0
        let count = range?.count ?? length
        if let range { fields.append(("Content-Range", "bytes \(range.first)-\(range.last)/\(length)")) }
        return HTTPResponse(status: range == nil ? 200 : 206, headers: fields, body: .stream(length: count) { writer in
            var offset = first
            let end = first + count
            while offset < end {
                let bytes = try read(offset, Int(min(Int64(chunkSize), end - offset)))
                // A file that shrank under us: end the body short, which closes the connection
                // rather than sending a wrong framing.
                guard !bytes.isEmpty else { return }
                try await writer.write(bytes)
                offset += Int64(bytes.count)
            }
        })
    }
}
