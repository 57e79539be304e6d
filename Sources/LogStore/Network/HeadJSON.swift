/// Request and response heads as the compact JSON `task_heads` stores, written by hand: the
/// writer encodes two per task, and `JSONEncoder` took ~6 % of its time. The keys and shapes
/// are those of the types' `Codable` conformance (absent values left out), so `JSONDecoder`
/// reads them back.
enum HeadJSON {
    static func encode(_ request: NetworkRequest) -> String {
        var output: [UInt8] = [UInt8(ascii: "{")]
        output.reserveCapacity(256)
        if let cachePolicy = request.cachePolicy { appendString("cachePolicy", cachePolicy, to: &output) }
        appendHeaders(request.headers, to: &output)
        appendString("method", request.method, to: &output)
        if let timeout = request.timeout { appendRaw("timeout", String(timeout), to: &output) }
        if let url = request.url { appendString("url", url.absoluteString, to: &output) }
        output.append(UInt8(ascii: "}"))
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether the two requests encode to the same head: they agree on every field
    /// `encode(_:)` writes for a request (keep the two in step). Cheaper than encoding and
    /// hashing; false only costs that work. The URL is compared as the text the head holds.
    static func isSameHead(_ first: NetworkRequest, _ second: NetworkRequest) -> Bool {
        first.method == second.method && first.timeout == second.timeout && first.cachePolicy == second.cachePolicy
            && first.url?.absoluteString == second.url?.absoluteString && first.headers == second.headers
    }

    static func encode(_ response: NetworkResponse) -> String {
        var output: [UInt8] = [UInt8(ascii: "{")]
        output.reserveCapacity(256)
        appendHeaders(response.headers, to: &output)
        if let statusCode = response.statusCode { appendRaw("statusCode", String(statusCode), to: &output) }
        if let url = response.url { appendString("url", url.absoluteString, to: &output) }
        output.append(UInt8(ascii: "}"))
        return String(decoding: output, as: UTF8.self)
    }

    private static func appendKey(_ name: String, to output: inout [UInt8]) {
        if output.count > 1 { output.append(UInt8(ascii: ",")) }
        MetadataJSON.write(name, to: &output)
        output.append(UInt8(ascii: ":"))
    }

    private static func appendString(_ name: String, _ value: String, to output: inout [UInt8]) {
        appendKey(name, to: &output)
        MetadataJSON.write(value, to: &output)
    }

    private static func appendRaw(_ name: String, _ value: String, to output: inout [UInt8]) {
        appendKey(name, to: &output)
        output.append(contentsOf: value.utf8)
    }

    /// The headers as an object, names in byte order (so equal heads give equal JSON).
    private static func appendHeaders(_ headers: [String: String], to output: inout [UInt8]) {
        appendKey("headers", to: &output)
        output.append(UInt8(ascii: "{"))
        let names = headers.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        for (position, header) in names.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            MetadataJSON.write(header.key, to: &output)
            output.append(UInt8(ascii: ":"))
            MetadataJSON.write(header.value, to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }
}
