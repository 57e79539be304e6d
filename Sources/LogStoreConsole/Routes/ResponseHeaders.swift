/// The header fields every console response carries, and the helpers that build responses.
enum ResponseHeaders {
    /// Scripts and styles only from the console itself, no inline code, no frames, no plugins,
    /// requests only to itself: logged text is attacker-controlled, and the page renders it as
    /// text, but this is what holds if that ever slips. Images may be `blob:` (bodies shown from
    /// what the page fetched) and `data:`.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// On every response: no sniffing a body into another type, no framing, no referrer (URLs
    /// carry the token), no caching of anything (logs hold secrets), and no CORS header at all:
    /// other origins' scripts cannot read what the console answers.
    static let common: [(name: String, value: String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ]

    /// A response of `bytes` as `contentType`.
    static func response(
        _ status: Int = 200, contentType: String, _ bytes: [UInt8], extra: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: common + [("Content-Type", contentType)] + extra, body: .bytes(bytes))
    }

    /// A JSON error, as the page reads them.
    static func error(_ error: ConsoleRequestError) -> HTTPResponse {
        var extra: [(name: String, value: String)] = []
        if case .rangeNotSatisfiable(let length) = error { extra.append(("Content-Range", "bytes */\(length)")) }
        if case .unauthorized = error { extra.append(("WWW-Authenticate", "Bearer")) }
        var response = JSONBody.response(["error": error.message], status: error.status)
        response.headers += extra
        return response
    }
}
