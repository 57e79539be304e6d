import Foundation

@testable import LogStoreConsole

extension FuzzEntry {
    /// The console server's request parser, fed what a client could send. The first byte picks
    /// how: its low 5 bits the size of the pieces the bytes arrive in (0: all at once), bit 5 the
    /// limits (small ones the fuzzer can reach, or the defaults). The parser must reach the same
    /// outcome whatever the pieces, never hold more than the limits without refusing, accept
    /// only heads within them, and read a head it accepted, written out again, to the same head.
    static func httpRequest(_ data: Data) -> String? {
        guard let first = data.first else { return nil }
        let input = [UInt8](data.dropFirst())
        let limits =
            first & 0x20 == 0
            ? HTTPLimits(maxRequestLineBytes: 64, maxHeaderBytes: 256, maxHeaderCount: 6) : HTTPLimits()
        let whole = parseHTTPHead(input, limits: limits, pieces: 0)
        let pieces = Int(first & 0x1F)
        if pieces > 0 {
            let piecewise = parseHTTPHead(input, limits: limits, pieces: pieces)
            guard piecewise == whole else {
                return "in pieces of \(pieces) bytes the outcome is \(piecewise), all at once \(whole)"
            }
        }
        switch whole {
        case .incomplete:
            // An incomplete head is within the limits, or it would have been refused.
            let bound = 16 * 2 + limits.maxRequestLineBytes + 2 + limits.maxHeaderBytes
            return input.count <= bound ? nil : "\(input.count) bytes held without a refusal (bound \(bound))"
        case .rejected(let rejection):
            return [400, 405, 413, 414, 431, 505].contains(rejection.status) ? nil : "refused with status \(rejection.status)"
        case .complete(let head, let consumed):
            if let finding = checkAcceptedHead(head, consumed: consumed, input: input, limits: limits) { return finding }
            // Written out again, the head reads back the same (limits loosened: the writing
            // normalises spaces and invalid UTF-8, which can lengthen it).
            let serialized = head.serialized
            let loose = HTTPLimits(maxRequestLineBytes: 1 << 20, maxHeaderBytes: 1 << 20, maxHeaderCount: 1 << 20)
            let again = parseHTTPHead(serialized, limits: loose, pieces: 0)
            guard again == .complete(head, consumed: serialized.count) else {
                return "\(head) written as \(String(decoding: serialized, as: UTF8.self).debugDescription) reads back as \(again)"
            }
            // Bytes after the head (a pipelined request) change nothing.
            let followed = parseHTTPHead(Array(input[..<consumed]) + Array("GET / HTTP/1.1\r\n".utf8), limits: limits, pieces: 0)
            guard followed == whole else { return "bytes after the head turn \(whole) into \(followed)" }
            return nil
        }
    }

    /// Parses `bytes` as a connection does: all at once, or growing by `pieces` bytes a call.
    private static func parseHTTPHead(_ bytes: [UInt8], limits: HTTPLimits, pieces: Int) -> HTTPRequestParser.Outcome {
        var parser = HTTPRequestParser(limits: limits)
        guard pieces > 0 else { return parser.parse(bytes) }
        var end = 0
        var outcome = HTTPRequestParser.Outcome.incomplete
        repeat {
            end = min(bytes.count, end + pieces)
            outcome = parser.parse(Array(bytes[..<end]))
        } while outcome == .incomplete && end < bytes.count
        return outcome
    }

    /// What holds of every head the parser accepts.
    private static func checkAcceptedHead(_ head: HTTPRequestHead, consumed: Int, input: [UInt8], limits: HTTPLimits) -> String? {
        let crlf = Array("\r\n".utf8)
        guard consumed <= input.count, consumed >= 4, input[(consumed - 4)..<consumed].elementsEqual("\r\n\r\n".utf8) else {
            return "a head of \(consumed) bytes that does not end in a blank line"
        }
        var start = 0
        while input[start...].starts(with: crlf) { start += 2 }
        guard let lineEnd = input[start..<consumed].firstRange(of: crlf) else { return "no request line" }
        if lineEnd.lowerBound - start > limits.maxRequestLineBytes {
            return "a request line of \(lineEnd.lowerBound - start) bytes accepted (limit \(limits.maxRequestLineBytes))"
        }
        if consumed - lineEnd.upperBound > limits.maxHeaderBytes {
            return "a header block of \(consumed - lineEnd.upperBound) bytes accepted (limit \(limits.maxHeaderBytes))"
        }
        if head.headers.count > limits.maxHeaderCount {
            return "\(head.headers.count) fields accepted (limit \(limits.maxHeaderCount))"
        }
        guard head.path.hasPrefix("/"), (head.path + (head.query ?? "")).utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") })
        else { return "a target that is not an origin-form path: \(head.path.debugDescription)" }
        for field in head.headers {
            let bytes = Array(field.name.utf8) + Array(field.value.utf8)
            if bytes.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) { return "a field with CR, LF or NUL: \(field)" }
            if field.value.first == " " || field.value.last == " " { return "a value with spaces around it: \(field)" }
        }
        let hosts = head.headers.filter { $0.name.caseInsensitiveEquals("Host") }.count
        if hosts > 1 || (head.version == .http11 && hosts == 0) { return "\(hosts) Host fields accepted" }
        return nil
    }
}
