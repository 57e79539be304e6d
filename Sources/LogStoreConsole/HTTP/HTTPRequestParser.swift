/// Reads a request head (request line, header fields, blank line) from the bytes a connection
/// received so far, as they arrive: each call scans only the bytes new since the last, so a
/// client sending a byte at a time costs linear time, not quadratic.
///
/// It is strict where leniency lets two readers of one request disagree (request smuggling) or
/// lets a client hold memory: every line must end in CRLF (a bare CR or LF is refused), no NUL,
/// no obsolete line folding, header names must be tokens with the colon right after them, and
/// the limits are checked on every byte, so no call ever holds more than a limit and one read
/// of a head it will refuse. Up to 16 empty lines before the request line are skipped, as
/// RFC 9112 §2.2 asks.
struct HTTPRequestParser {
    /// What a call found.
    enum Outcome: Equatable {
        /// The head is not complete yet: call again with more bytes.
        case incomplete
        /// A valid head, which took the first `consumed` bytes (any after it belong to the next
        /// request).
        case complete(HTTPRequestHead, consumed: Int)
        /// The server answers with an error and closes the connection.
        case rejected(HTTPRequestRejection)
    }

    /// The request line's parts, kept once its line ended.
    private struct RequestLine {
        var method: HTTPMethod
        var path: String
        var query: String?
        var version: HTTPVersion
    }

    private let maxRequestLineBytes: Int
    private let maxHeaderBytes: Int
    private let maxHeaderCount: Int

    /// The next byte to look at.
    private var position = 0
    /// Where the line being scanned starts.
    private var lineStart = 0
    /// Empty lines seen before the request line.
    private var leadingEmptyLines = 0
    /// The request line, once read.
    private var requestLine: RequestLine?
    /// Where the header block starts (after the request line's CRLF).
    private var headersStart = 0
    /// The fields read so far.
    private var fields: [(name: String, value: String)] = []
    /// A refusal, which every later call repeats.
    private var rejection: HTTPRequestRejection?

    /// A parser for a new head within `limits`.
    init(limits: HTTPLimits) {
        maxRequestLineBytes = max(1, limits.maxRequestLineBytes)
        maxHeaderBytes = max(2, limits.maxHeaderBytes)
        maxHeaderCount = max(0, limits.maxHeaderCount)
    }

    /// Starts over for the next head (after the caller dropped the bytes the last one consumed).
    mutating func reset() {
        self = HTTPRequestParser(maxRequestLineBytes: maxRequestLineBytes, maxHeaderBytes: maxHeaderBytes, maxHeaderCount: maxHeaderCount)
    }

    private init(maxRequestLineBytes: Int, maxHeaderBytes: Int, maxHeaderCount: Int) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
    }

    /// Reads on in `bytes`: every byte received since the head began, those of earlier calls
    /// first and unchanged.
    mutating func parse(_ bytes: [UInt8]) -> Outcome {
        if let rejection { return .rejected(rejection) }
        let outcome = bytes.withUnsafeBufferPointer { scan($0) }
        if case .rejected(let rejection) = outcome { self.rejection = rejection }
        return outcome
    }

    private mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
        while position < bytes.count {
            let byte = bytes[position]
            if requestLine == nil {
                if byte != .cr && byte != .lf && position + 1 - lineStart > maxRequestLineBytes {
                    return refuse(HTTPRequestRejection(status: 414, reason: "the request line is longer than \(maxRequestLineBytes) bytes"))
                }
            } else if position + 1 - headersStart > maxHeaderBytes {
                return refuse(HTTPRequestRejection(status: 431, reason: "the header fields take more than \(maxHeaderBytes) bytes"))
            }
            if byte == .lf {
                guard position > lineStart, bytes[position - 1] == .cr else {
                    return refuse(.badRequest("a line ends in LF without CR"))
                }
                let line = lineStart..<(position - 1)
                position += 1
                lineStart = position
                if let outcome = lineEnded(UnsafeBufferPointer(rebasing: bytes[line])) { return outcome }
                continue
            }
            if position > lineStart && bytes[position - 1] == .cr {
                return refuse(.badRequest("a CR not followed by LF"))
            }
            if byte == 0 { return refuse(.badRequest("a NUL byte")) }
            position += 1
        }
        return .incomplete
    }

    /// Takes in a line (without its CRLF); the outcome once the head is complete or refused.
    private mutating func lineEnded(_ line: UnsafeBufferPointer<UInt8>) -> Outcome? {
        guard requestLine != nil else {
            if line.isEmpty {
                leadingEmptyLines += 1
                return leadingEmptyLines > 16 ? refuse(.badRequest("too many empty lines before the request line")) : nil
            }
            switch Self.requestLine(line) {
            case .success(let parsed):
                requestLine = parsed
                headersStart = lineStart
                return nil
            case .failure(let rejection):
                return refuse(rejection)
            }
        }
        if line.isEmpty { return finish() }
        switch Self.field(line) {
        case .success(let field):
            fields.append(field)
            if fields.count > maxHeaderCount {
                return refuse(HTTPRequestRejection(status: 431, reason: "more than \(maxHeaderCount) header fields"))
            }
            return nil
        case .failure(let rejection):
            return refuse(rejection)
        }
    }

    /// The head ends: checks what needs all the fields (Host, body, connection).
    private mutating func finish() -> Outcome {
        guard let line = requestLine else { return refuse(.badRequest("no request line")) }
        switch HTTPRequestFields.check(fields, version: line.version) {
        case .success(let keepAlive):
            let head = HTTPRequestHead(
                method: line.method, path: line.path, query: line.query, headers: fields, version: line.version,
                keepAlive: keepAlive)
            return .complete(head, consumed: position)
        case .failure(let rejection):
            return refuse(rejection)
        }
    }

    private mutating func refuse(_ rejection: HTTPRequestRejection) -> Outcome {
        var rejection = rejection
        rejection.isHead = rejection.isHead || requestLine?.method == .head
        return .rejected(rejection)
    }

    /// `method SP request-target SP HTTP-version`, single spaces, origin-form target.
    private static func requestLine(_ line: UnsafeBufferPointer<UInt8>) -> Result<RequestLine, HTTPRequestRejection> {
        let parts = line.split(separator: .space, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            return .failure(.badRequest("the request line is not 'method target version'"))
        }
        let (methodBytes, target, versionBytes) = (parts[0], parts[1], parts[2])
        guard methodBytes.allSatisfy(\.isHTTPTokenCharacter) else { return .failure(.badRequest("the method is not a token")) }
        let isHead = methodBytes.elementsEqual("HEAD".utf8)
        func bad(_ reason: String) -> Result<RequestLine, HTTPRequestRejection> {
            .failure(HTTPRequestRejection(status: 400, reason: reason, isHead: isHead))
        }
        guard target.first == .slash else { return bad("the target is not a path starting with '/'") }
        guard target.allSatisfy({ $0 > .space && $0 < 0x7F && $0 != .hash }) else {
            return bad("the target holds a byte that must be percent-encoded")
        }
        let version: HTTPVersion
        if versionBytes.elementsEqual("HTTP/1.1".utf8) {
            version = .http11
        } else if versionBytes.elementsEqual("HTTP/1.0".utf8) {
            version = .http10
        } else if versionBytes.count == 8, versionBytes.starts(with: "HTTP/".utf8),
            versionBytes.dropFirst(5).enumerated().allSatisfy({ $0.offset == 1 ? $0.element == .dot : $0.element.isDigit })
        {
            return .failure(HTTPRequestRejection(status: 505, reason: "only HTTP/1.1 and HTTP/1.0 are served", isHead: isHead))
        } else {
            return bad("the version is not HTTP/1.x")
        }
        let method: HTTPMethod
        if methodBytes.elementsEqual("GET".utf8) {
            method = .get
        } else if isHead {
            method = .head
        } else {
            return .failure(HTTPRequestRejection(status: 405, reason: "only GET and HEAD are served"))
        }
        let question = target.firstIndex(of: .question)
        let path = String(decoding: target[..<(question ?? target.endIndex)], as: UTF8.self)
        let query = question.map { String(decoding: target[target.index(after: $0)...], as: UTF8.self) }
        return .success(RequestLine(method: method, path: path, query: query, version: version))
    }

    /// `name ":" OWS value OWS`: name a token, value visible bytes, spaces and tabs.
    private static func field(_ line: UnsafeBufferPointer<UInt8>) -> Result<(name: String, value: String), HTTPRequestRejection> {
        guard let first = line.first, first != .space, first != .tab else {
            return .failure(.badRequest("a line starting with whitespace (obsolete line folding)"))
        }
        guard let colon = line.firstIndex(of: .colon) else { return .failure(.badRequest("a header line without ':'")) }
        let name = line[..<colon]
        guard !name.isEmpty, name.allSatisfy(\.isHTTPTokenCharacter) else {
            return .failure(.badRequest("a header name that is not a token"))
        }
        var value = line[line.index(after: colon)...]
        while let byte = value.first, byte == .space || byte == .tab { value = value.dropFirst() }
        while let byte = value.last, byte == .space || byte == .tab { value = value.dropLast() }
        // Visible ASCII, obs-text (0x80-0xFF), space and tab; no other control byte, no DEL.
        guard value.allSatisfy({ $0 == .tab || ($0 >= .space && $0 != 0x7F) }) else {
            return .failure(.badRequest("a header value with a control character"))
        }
        return .success((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }
}

extension UInt8 {
    fileprivate static let cr = UInt8(ascii: "\r")
    fileprivate static let lf = UInt8(ascii: "\n")
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let slash = UInt8(ascii: "/")
    fileprivate static let hash = UInt8(ascii: "#")
    fileprivate static let dot = UInt8(ascii: ".")
    fileprivate static let question = UInt8(ascii: "?")

    /// An ASCII digit.
    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }

    /// A `tchar` of RFC 9110 §5.6.2: letters, digits and ``!#$%&'*+-.^_`|~``.
    var isHTTPTokenCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(self)
        }
    }
}
