import Foundation
import Glibc

/// The HAR fields derived from what the store keeps as text: query strings, cookies, the HTTP
/// version and the status text. Each parse is lenient (a stored header may be anything) and
/// never fails: what does not parse is left out.
enum HARFields {
    /// A name–value pair of a HAR `queryString`, `params` or `headers` list.
    struct Pair: Equatable {
        var name: String
        var value: String
    }

    /// A cookie of a HAR `cookies` list; the attributes only come from `Set-Cookie`.
    struct Cookie: Equatable {
        var name: String
        var value: String
        var path: String?
        var domain: String?
        var expires: Date?
        var httpOnly = false
        var secure = false
    }

    /// Headers in ``HeaderOrder``, as every format lists them.
    static func headers(_ headers: [String: String]) -> [Pair] {
        HeaderOrder.sorted(headers).map { Pair(name: $0.name, value: $0.value) }
    }

    /// The query items of `url`, percent-decoded (a `+` stays a `+`: only forms mean a space by
    /// it), in order; an item without `=` has an empty value.
    static func queryString(of url: String) -> [Pair] {
        guard let question = url.firstIndex(of: "?") else { return [] }
        var query = url[url.index(after: question)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        return pairs(query, separator: "&", plusIsSpace: false)
    }

    /// The fields of an `application/x-www-form-urlencoded` body, where `+` is a space.
    static func formParameters(_ body: String) -> [Pair] {
        pairs(Substring(body), separator: "&", plusIsSpace: true)
    }

    /// The cookies of a request's `Cookie` header: `name=value` pairs separated by `;`. A part
    /// without `=` is not a cookie (such as a redacted value, `<private>`) and is left out.
    static func requestCookies(_ header: String?) -> [Cookie] {
        guard let header else { return [] }
        return header.split(separator: ";").compactMap { part in
            guard let (name, value) = nameValue(part) else { return nil }
            return Cookie(name: name, value: value)
        }
    }

    /// The cookies of a response's `Set-Cookie` header. Foundation joins repeated `Set-Cookie`
    /// fields with `, `, and a cookie's `Expires` holds a comma too (`Wed, 21 Oct 2015 …`), so a
    /// comma starts a new cookie only when a `name=` follows it.
    static func responseCookies(_ header: String?) -> [Cookie] {
        guard let header else { return [] }
        var cookies: [String] = []
        for piece in header.split(separator: ",", omittingEmptySubsequences: false) {
            if let last = cookies.indices.last, !startsCookie(piece) {
                cookies[last] += "," + piece
            } else {
                cookies.append(String(piece))
            }
        }
        return cookies.compactMap(setCookie)
    }

    /// The HAR `httpVersion` for an ALPN protocol identifier: `h2` → `HTTP/2`, `http/1.1` →
    /// `HTTP/1.1`; `unknown` when the metrics did not say (HAR requires a string, and guessing
    /// `HTTP/1.1` would state what nobody measured).
    static func httpVersion(_ networkProtocol: String?) -> String {
        guard let networkProtocol, !networkProtocol.isEmpty else { return "unknown" }
        switch networkProtocol.lowercased() {
        case "h2", "h2c": return "HTTP/2"
        case "h3": return "HTTP/3"
        case let other where other.hasPrefix("http/"): return other.uppercased()
        default: return networkProtocol
        }
    }

    /// The reason phrase RFC 9110 gives a status code; empty for codes it does not name (the
    /// store keeps the code, not the phrase the server sent).
    static func statusText(_ code: Int) -> String {
        reasonPhrases[code] ?? ""
    }

    private static let reasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols", 103: "Early Hints",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
        205: "Reset Content", 206: "Partial Content",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required",
        408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
        413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        417: "Expectation Failed", 421: "Misdirected Request", 422: "Unprocessable Content", 425: "Too Early",
        426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests",
        431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported", 511: "Network Authentication Required",
    ]

    // MARK: Parsing

    private static func pairs(_ text: Substring, separator: Character, plusIsSpace: Bool) -> [Pair] {
        text.split(separator: separator).map { item in
            let (name, value): (Substring, Substring)
            if let equals = item.firstIndex(of: "=") {
                (name, value) = (item[..<equals], item[item.index(after: equals)...])
            } else {
                (name, value) = (item, "")
            }
            return Pair(name: decoded(name, plusIsSpace: plusIsSpace), value: decoded(value, plusIsSpace: plusIsSpace))
        }
    }

    /// Percent-decoded text; the text as it is when it does not decode (a stray `%`).
    private static func decoded(_ text: Substring, plusIsSpace: Bool) -> String {
        let text = plusIsSpace ? text.replacingOccurrences(of: "+", with: " ") : String(text)
        return text.removingPercentEncoding ?? text
    }

    /// `name=value` with the blanks around each trimmed; nil without `=` or a name.
    private static func nameValue(_ part: Substring) -> (String, String)? {
        guard let equals = part.firstIndex(of: "=") else { return nil }
        let name = part[..<equals].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return nil }
        var value = part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
        return (name, value)
    }

    /// Whether a piece after a comma begins a new cookie: a token (no blank, `;` or `,`) and `=`.
    private static func startsCookie(_ piece: Substring) -> Bool {
        let trimmed = piece.drop { $0 == " " || $0 == "\t" }
        guard let equals = trimmed.firstIndex(of: "=") else { return false }
        let name = trimmed[..<equals]
        return !name.isEmpty && !name.contains { $0 == " " || $0 == "\t" || $0 == ";" }
    }

    private static func setCookie(_ text: String) -> Cookie? {
        var parts = text.split(separator: ";")[...]
        guard let first = parts.popFirst(), let (name, value) = nameValue(first) else { return nil }
        var cookie = Cookie(name: name, value: value)
        for attribute in parts {
            let (key, argument) = nameValue(attribute) ?? (attribute.trimmingCharacters(in: .whitespaces), "")
            switch key.lowercased() {
            case "path": cookie.path = argument
            case "domain": cookie.domain = argument
            case "expires": cookie.expires = httpDate(argument)
            case "httponly": cookie.httpOnly = true
            case "secure": cookie.secure = true
            default: break
            }
        }
        return cookie
    }

    /// An HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`, also with `-` between the day, month and
    /// year as old servers send); nil for anything else.
    static func httpDate(_ text: String) -> Date? {
        let fields = text.split { $0 == " " || $0 == "-" || $0 == "," }
        guard fields.count >= 5 else { return nil }
        let day = fields[1], month = fields[2], year = fields[3]
        let clock = fields[4].split(separator: ":")
        guard let dayNumber = Int32(day), var yearNumber = Int32(year),
            let monthIndex = months.firstIndex(of: month.lowercased()), clock.count == 3,
            let hour = Int32(clock[0]), let minute = Int32(clock[1]), let second = Int32(clock[2]),
            (1...31).contains(dayNumber), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        if yearNumber < 100 { yearNumber += yearNumber < 70 ? 2000 : 1900 }
        guard (1601...9999).contains(yearNumber) else { return nil }
        var parts = tm()
        parts.tm_year = yearNumber - 1900
        parts.tm_mon = Int32(monthIndex)
        parts.tm_mday = dayNumber
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
}
