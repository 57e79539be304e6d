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

    /// Whether the two requests encode to the same head: they agree, byte for byte, on every
    /// field `encode(_:)` writes for a request (keep the two in step). Cheaper than encoding and
    /// hashing; a false answer only costs that work. Strings are compared as their UTF-8 bytes,
    /// not with `==`, which takes canonically equivalent spellings for equal; a timeout by its
    /// bits, so `-0.0` and `0.0` differ as their text does.
    static func isSameHead(_ first: NetworkRequest, _ second: NetworkRequest) -> Bool {
        guard first.timeout?.bitPattern == second.timeout?.bitPattern,
            sameBytes(first.method, second.method), sameBytes(first.cachePolicy, second.cachePolicy),
            sameBytes(first.url?.absoluteString, second.url?.absoluteString),
            first.headers.count == second.headers.count
        else { return false }
        let firstHeaders = sortedByName(first.headers)
        let secondHeaders = sortedByName(second.headers)
        return zip(firstHeaders, secondHeaders).allSatisfy {
            sameBytes($0.key, $1.key) && sameBytes($0.value, $1.value)
        }
    }

    private static func sameBytes(_ first: String?, _ second: String?) -> Bool {
        guard let first, let second else { return first == nil && second == nil }
        return first.utf8.elementsEqual(second.utf8)
    }

    /// The headers in the order `encode` writes them.
    private static func sortedByName(_ headers: [String: String]) -> [(key: String, value: String)] {
        headers.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
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
        for (position, header) in sortedByName(headers).enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            MetadataJSON.write(header.key, to: &output)
            output.append(UInt8(ascii: ":"))
            MetadataJSON.write(header.value, to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }
}
