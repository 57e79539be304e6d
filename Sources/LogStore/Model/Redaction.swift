import Foundation

/// What the store hides before anything reaches disk: header values, URL query item values, and
/// fields of JSON and form (`application/x-www-form-urlencoded`) bodies, each replaced by
/// ``placeholder`` (`"<private>"`).
///
/// The store applies it on every path that records a request — `storeRequest`, the network
/// logger, metrics — so a secret never reaches the database or a blob.
///
/// The defaults hide the usual credentials (``defaultSensitiveHeaders``,
/// ``defaultSensitiveQueryItems``, ``defaultSensitiveJSONFields``), and the password of a URL's
/// user info (`https://user:secret@host/`) is always hidden, wherever a URL is stored. Extend
/// the lists, or clear them:
///
/// ```swift
/// var redaction = Redaction()                      // the defaults
/// redaction.sensitiveJSONFields.insert("pin")      // … and one more field
/// redaction.sensitiveQueryItems = []               // no query item hidden
/// ```
///
/// All names are matched case-insensitively.
public struct Redaction: Sendable, Hashable {
    /// The text that replaces a hidden value: `"<private>"`. In a URL it appears
    /// percent-encoded (`%3Cprivate%3E`); in a JSON body as the string `"<private>"`.
    public static let placeholder = "<private>"

    /// The headers hidden by default: `Authorization`, `Proxy-Authorization`, `Cookie` and
    /// `Set-Cookie`.
    public static let defaultSensitiveHeaders: Set<String> = [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie",
    ]

    /// The query items hidden by default: access tokens, API keys, passwords and the signatures
    /// of signed URLs (`token`, `access_token`, `api_key`, `apikey`, `password`, `signature`,
    /// `sig`, `X-Amz-Signature`, `X-Amz-Credential`, `X-Amz-Security-Token`).
    public static let defaultSensitiveQueryItems: Set<String> = [
        "token", "access_token", "api_key", "apikey", "password", "signature", "sig",
        "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token",
    ]

    /// The JSON (and form) fields hidden by default: passwords, secrets, tokens and keys
    /// (`password`, `passwd`, `secret`, `token`, `access_token`, `refresh_token`, `id_token`,
    /// `api_key`, `apikey`, `client_secret`, `private_key`).
    public static let defaultSensitiveJSONFields: Set<String> = [
        "password", "passwd", "secret", "token", "access_token", "refresh_token", "id_token",
        "api_key", "apikey", "client_secret", "private_key",
    ]

    /// No header, query item or field hidden (a URL's user-info password still is). (Not named
    /// `none`, which would read as `Optional.none` where a `Redaction?` is expected.)
    public static let disabled = Redaction(sensitiveHeaders: [], sensitiveQueryItems: [], sensitiveJSONFields: [])

    /// Header names whose values are hidden, in requests, responses and metrics, matched
    /// case-insensitively. Default: ``defaultSensitiveHeaders``.
    public var sensitiveHeaders: Set<String> {
        didSet { headerKeys = Self.folded(sensitiveHeaders) }
    }

    /// Query item names whose values are hidden in every recorded URL, and in form bodies
    /// (`application/x-www-form-urlencoded`), matched case-insensitively. Default:
    /// ``defaultSensitiveQueryItems``.
    public var sensitiveQueryItems: Set<String> {
        didSet { queryKeys = Self.folded(sensitiveQueryItems) }
    }

    /// JSON object keys whose values (of any type, objects and arrays included) are hidden in
    /// request and response bodies, at any depth, matched case-insensitively; form bodies
    /// (`application/x-www-form-urlencoded`) hide fields of these names too. Default:
    /// ``defaultSensitiveJSONFields``.
    ///
    /// Only JSON bodies are rewritten: a `Content-Type` of `application/json`, `text/json` or any
    /// `+json` type, or, when there is no content type, a body whose first non-blank character is
    /// `{` or `[`. The rewrite replaces the values in place and keeps every other byte — key order,
    /// spacing, number spelling. A body with no sensitive key, or that is not valid JSON, is
    /// stored unchanged. Nesting depth is not limited: the scanner keeps its own stack, so a
    /// hostile body cannot exhaust the thread's stack.
    public var sensitiveJSONFields: Set<String> {
        didSet {
            jsonKeys = Self.folded(sensitiveJSONFields)
            jsonASCIIKeys = ASCIIKeyNames(folded: jsonKeys)
            jsonKeyPrecheck = KeyPrecheck(names: jsonKeys)
        }
    }

    // Lowercased copies of the sets above, so a lookup costs one hash and no re-folding.
    private var headerKeys: Set<String>
    private var queryKeys: Set<String>
    private var jsonKeys: Set<String>
    /// The ASCII ones of `jsonKeys`, for matching most keys on their bytes.
    private(set) var jsonASCIIKeys: ASCIIKeyNames
    /// The one-pass test that skips the scanner for bodies holding none of `jsonKeys` (nil when
    /// they cannot be pre-checked: the scanner then always runs).
    private(set) var jsonKeyPrecheck: KeyPrecheck?

    /// Creates a redaction policy.
    ///
    /// - Parameters:
    ///   - sensitiveHeaders: Header names to hide. Default ``defaultSensitiveHeaders``.
    ///   - sensitiveQueryItems: Query item names to hide. Default ``defaultSensitiveQueryItems``.
    ///   - sensitiveJSONFields: JSON keys to hide at any depth. Default ``defaultSensitiveJSONFields``.
    public init(
        sensitiveHeaders: Set<String> = Redaction.defaultSensitiveHeaders,
        sensitiveQueryItems: Set<String> = Redaction.defaultSensitiveQueryItems,
        sensitiveJSONFields: Set<String> = Redaction.defaultSensitiveJSONFields
    ) {
        self.sensitiveHeaders = sensitiveHeaders
        self.sensitiveQueryItems = sensitiveQueryItems
        self.sensitiveJSONFields = sensitiveJSONFields
        self.headerKeys = Self.folded(sensitiveHeaders)
        self.queryKeys = Self.folded(sensitiveQueryItems)
        self.jsonKeys = Self.folded(sensitiveJSONFields)
        self.jsonASCIIKeys = ASCIIKeyNames(folded: jsonKeys)
        self.jsonKeyPrecheck = KeyPrecheck(names: jsonKeys)
    }

    private static func folded(_ names: Set<String>) -> Set<String> {
        Set(names.map { $0.lowercased() })
    }

    func isSensitiveHeader(_ name: String) -> Bool { headerKeys.contains(name.lowercased()) }
    func isSensitiveQueryItem(_ name: String) -> Bool { queryKeys.contains(name.lowercased()) }
    func isSensitiveJSONField(_ name: String) -> Bool { jsonKeys.contains(name.lowercased()) }
    var hasSensitiveJSONFields: Bool { !jsonKeys.isEmpty }

    /// A form field is hidden when its name is among the query items or the JSON fields: a
    /// login form's `password` is the JSON body's `password` in another encoding.
    func isSensitiveFormField(_ name: String) -> Bool {
        let folded = name.lowercased()
        return queryKeys.contains(folded) || jsonKeys.contains(folded)
    }
    var hasSensitiveFormFields: Bool { !queryKeys.isEmpty || !jsonKeys.isEmpty }
}

// MARK: - Applying the policy

extension Redaction {
    /// The request with sensitive header values, query item values and JSON body fields hidden.
    func redact(_ request: NetworkRequest) -> NetworkRequest {
        var request = request
        request.headers = redact(headers: request.headers)
        request.url = request.url.map(redact)
        if let body = request.body {
            request.body = redactBody(body, contentType: request.contentType)
        }
        return request
    }

    /// The response head with sensitive header values (such as `Set-Cookie`) and query item
    /// values hidden. Its body goes through ``redactBody(_:contentType:)`` separately.
    func redact(_ response: NetworkResponse) -> NetworkResponse {
        var response = response
        response.headers = redact(headers: response.headers)
        response.url = response.url.map(redact)
        return response
    }

    /// The metrics with every transaction's request and response heads redacted.
    func redact(_ metrics: NetworkMetrics) -> NetworkMetrics {
        var metrics = metrics
        metrics.transactions = metrics.transactions.map(redact)
        return metrics
    }

    /// The transaction with its request and response heads redacted.
    func redact(_ transaction: NetworkTransactionMetrics) -> NetworkTransactionMetrics {
        var transaction = transaction
        transaction.request = transaction.request.map(redact)
        transaction.response = transaction.response.map(redact)
        return transaction
    }

    /// The headers with the values of sensitive ones replaced; names are kept as given.
    func redact(headers: [String: String]) -> [String: String] {
        guard !headerKeys.isEmpty, headers.keys.contains(where: isSensitiveHeader) else { return headers }
        var result = headers
        for name in headers.keys where isSensitiveHeader(name) {
            result[name] = Self.placeholder
        }
        return result
    }

    /// The URL with the values of sensitive query items replaced by `%3Cprivate%3E` and any
    /// password in its user info hidden the same way; everything else, percent-encoding included,
    /// is kept. The URL itself is returned when there is nothing to hide.
    ///
    /// Should Foundation fail to split a URL that has a query while sensitive query items are
    /// configured, the whole query is dropped rather than risk keeping a secret.
    func redact(_ url: URL) -> URL {
        let mayHaveSecretQuery = !queryKeys.isEmpty && url.query != nil
        // `url.password` is only the cheap pre-check; the rewrite goes through the components.
        guard mayHaveSecretQuery || url.password != nil else { return url }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return Self.droppingQuery(of: url)
        }
        var changed = false
        let encodedPlaceholder = "%3Cprivate%3E"
        if components.percentEncodedPassword != nil {
            components.percentEncodedPassword = encodedPlaceholder
            changed = true
        }
        if mayHaveSecretQuery, let items = components.percentEncodedQueryItems {
            let redacted = items.map { item -> URLQueryItem in
                let name = item.name.removingPercentEncoding ?? item.name
                guard isSensitiveQueryItem(name), item.value != nil else { return item }
                return URLQueryItem(name: item.name, value: encodedPlaceholder)
            }
            if redacted != items {
                components.percentEncodedQueryItems = redacted
                changed = true
            }
        }
        guard changed else { return url }
        return components.url ?? Self.droppingQuery(of: url)
    }

    private static func droppingQuery(of url: URL) -> URL {
        let string = hidingURLPasswords(in: url.absoluteString)
        let cut = string.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? string.endIndex
        // A URL that cannot be rebuilt is not kept at all: it could hold the password.
        return URL(string: String(string[..<cut])) ?? URL(string: "about:blank") ?? url
    }
}
