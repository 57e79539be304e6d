/// Who may use a console: whoever holds its token, through the address it is bound to.
///
/// The token (128 random bits, hex) reaches the console once in the printed URL (`?token=`), is
/// compared in constant time, and is then kept in an `HttpOnly; SameSite=Strict` cookie, so the
/// page's own requests carry it without a script ever seeing it. Tools send it as
/// `Authorization: Bearer …` (or `?token=`, as the printed URL does). Every route checks it,
/// the page and its script included.
///
/// The `Host` check stops DNS rebinding: a page of another site whose name is made to resolve to
/// 127.0.0.1 reaches the port, but its requests carry that site's name, which a console bound to
/// loopback refuses. A console listening beyond loopback (an explicit choice) cannot know the
/// names it is reached by, and relies on the token alone.
struct ConsoleAccess: Sendable {
    /// The cookie holding the token.
    static let cookieName = "logstore_console"

    /// The token, as it appears in URLs.
    let token: String
    /// Hosts the console answers for, lowercased, with their port (`127.0.0.1:8080`); empty:
    /// any (bound beyond loopback).
    let allowedHosts: Set<String>

    /// A fresh token; `host` and `port` are the bound address.
    init(host: String, port: UInt16, token: String = ConsoleAccess.makeToken()) {
        self.token = token
        if Self.isLoopback(host) {
            allowedHosts = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", "\(host.lowercased()):\(port)"]
        } else {
            allowedHosts = []
        }
    }

    /// 128 random bits from the system's generator (`getrandom`), as 32 hex digits.
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let words = [generator.next(), generator.next()] as [UInt64]
        return words.map { word in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Whether `host` is a loopback address or name.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Checks `request`'s `Host`, then its token (query, bearer or cookie).
    /// - Returns: whether the token came in the query (the page then moves it into the cookie).
    /// - Throws: ``ConsoleRequestError/misdirected(_:)`` for another host,
    ///   ``ConsoleRequestError/unauthorized`` without the token.
    func check(_ request: HTTPRequest, parameters: QueryParameters) throws(ConsoleRequestError) -> Bool {
        if !allowedHosts.isEmpty {
            let host = request.header("Host")?.lowercased() ?? ""
            guard allowedHosts.contains(host) else {
                throw .misdirected("this console answers for \(allowedHosts.sorted().joined(separator: ", ")), not \(host.isEmpty ? "a request without Host" : host)")
            }
        }
        if let given = parameters.value("token"), Self.equalInConstantTime(given, token) { return true }
        if let authorization = request.header("Authorization"), authorization.hasPrefix("Bearer "),
            Self.equalInConstantTime(String(authorization.dropFirst(7)), token)
        {
            return false
        }
        for cookie in request.headers where cookie.name.caseInsensitiveEquals("Cookie") {
            for part in cookie.value.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingSpaces == Self.cookieName,
                    Self.equalInConstantTime(String(pair[1].trimmingSpaces), token)
                {
                    return false
                }
            }
        }
        throw .unauthorized
    }

    /// The `Set-Cookie` value that keeps the token for the page's later requests.
    var cookie: String {
        "\(Self.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"
    }

    /// Compares every byte whatever the first difference, so the time taken tells nothing of
    /// how much of a guess was right; the length is not secret (every token has 32 digits).
    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

extension Substring {
    /// Without leading and trailing spaces.
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
