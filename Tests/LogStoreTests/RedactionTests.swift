import Foundation
import Testing

@testable import LogStore

@Suite("Redaction")
struct RedactionTests {
    private let secret = "s3cr3t-VALUE-42"

    private func contains(_ data: Data, _ text: String) -> Bool {
        data.range(of: Data(text.utf8)) != nil
    }

    private func json(_ text: String) -> Data { Data(text.utf8) }

    // MARK: Headers

    @Test(arguments: ["Authorization", "authorization", "AUTHORIZATION", "Cookie", "cOOKIE", "Proxy-Authorization"])
    func defaultSensitiveHeadersInAnyCase(name: String) {
        let request = NetworkRequest(headers: [name: secret, "Accept": "text/html"])
        let redacted = Redaction().redact(request)
        #expect(redacted.headers[name] == "<private>")
        #expect(redacted.headers["Accept"] == "text/html")
        #expect(!redacted.headers.values.contains(secret))
    }

    @Test func setCookieInResponsesAndConfiguredHeaders() {
        let response = NetworkResponse(statusCode: 200, headers: ["set-cookie": secret, "X-Api-Key": secret, "Date": "today"])
        let redacted = Redaction(sensitiveHeaders: Redaction.defaultSensitiveHeaders.union(["x-api-KEY"])).redact(response)
        #expect(redacted.headers == ["set-cookie": "<private>", "X-Api-Key": "<private>", "Date": "today"])
        #expect(Redaction.disabled.redact(response) == response)
    }

    @Test func changingTheSetsTakesEffect() {
        var redaction = Redaction()
        redaction.sensitiveHeaders = ["X-Token"]
        let redacted = redaction.redact(NetworkRequest(headers: ["x-token": secret, "Authorization": "kept"]))
        #expect(redacted.headers == ["x-token": "<private>", "Authorization": "kept"])
    }

    // MARK: URLs

    @Test func configuredQueryItemIsHiddenAndTheRestKept() throws {
        let redaction = Redaction(sensitiveQueryItems: ["token"])
        let url = try #require(URL(string: "https://example.com/p%20ath?q=a%20b&TOKEN=\(secret)&x=%2F#frag"))
        let redacted = redaction.redact(url)
        #expect(redacted.absoluteString == "https://example.com/p%20ath?q=a%20b&TOKEN=%3Cprivate%3E&x=%2F#frag")
        #expect(!redacted.absoluteString.contains(secret))
        let item = URLComponents(url: redacted, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "TOKEN" }
        #expect(item?.value == "<private>")
    }

    @Test func urlWithoutSecretsIsReturnedAsIs() throws {
        let redaction = Redaction(sensitiveQueryItems: ["token"])
        let url = try #require(URL(string: "https://example.com/a?b=%7Bc%7D&d"))
        #expect(redaction.redact(url) == url)
        #expect(redaction.redact(url).absoluteString == url.absoluteString)
    }

    @Test func passwordInUserInfoIsHidden() throws {
        let url = try #require(URL(string: "https://ada:\(secret)@example.com/"))
        let redacted = Redaction().redact(url)
        #expect(!redacted.absoluteString.contains(secret))
        #expect(redacted.user == "ada")
    }

    @Test func requestAndResponseURLsAndMetricsAreRedacted() throws {
        let redaction = Redaction(sensitiveQueryItems: ["token"])
        let url = try #require(URL(string: "https://example.com/?token=\(secret)"))
        let request = NetworkRequest(url: url, headers: ["Authorization": secret])
        let response = NetworkResponse(url: url, statusCode: 200, headers: ["Set-Cookie": secret])
        let metrics = NetworkMetrics(transactions: [NetworkTransactionMetrics(request: request, response: response)])
        let redacted = redaction.redact(metrics)
        let encoded = try JSONEncoder().encode(redacted)
        #expect(!contains(encoded, secret))
        #expect(redacted.transactions[0].response?.statusCode == 200)
        #expect(!contains(try JSONEncoder().encode(redaction.redact(request)), secret))
        #expect(!contains(try JSONEncoder().encode(redaction.redact(response)), secret))
    }

    // MARK: JSON bodies

    @Test func nestedPasswordsAreHiddenAtAnyDepth() {
        let body = json("""
        {"user": "ada", "password": "\(secret)",
         "accounts": [{"name": "a", "Password": "\(secret)"},
                      [{"deep": {"list": [1, {"PASSWORD": {"nested": "\(secret)"}}]}}]],
         "count": 3, "ratio": 1.5e10, "ok": true, "none": null}
        """)
        let redacted = Redaction(sensitiveJSONFields: ["password"]).redactBody(body, contentType: "application/json")
        #expect(!contains(redacted, secret))
        let object = try? JSONSerialization.jsonObject(with: redacted) as? [String: Any]
        #expect(object?["password"] as? String == "<private>")
        #expect(object?["user"] as? String == "ada")
        // Everything else is kept byte for byte, number spellings and spacing included.
        #expect(contains(redacted, #""ratio": 1.5e10, "ok": true, "none": null}"#))
        #expect(contains(redacted, #"{"name": "a", "Password": "<private>"}"#))
        #expect(contains(redacted, #"[1, {"PASSWORD": "<private>"}]"#))
    }

    @Test func requestBodyIsRedactedThroughTheRequest() {
        let request = NetworkRequest(
            method: "POST", headers: ["Content-Type": "application/vnd.api+json; charset=utf-8"],
            body: json(#"{"data":{"password":"\#(secret)"}}"#))
        let redacted = Redaction(sensitiveJSONFields: ["password"]).redact(request)
        #expect(redacted.body == json(#"{"data":{"password":"<private>"}}"#))
    }

    @Test func bodyWithoutSecretsIsUnchangedByteForByte() {
        let body = json("  {\"b\" : 1.0000, \"a\":[true ,false],\n\"\\u0041\": \"\\u00e9\"}  \n")
        let redaction = Redaction(sensitiveJSONFields: ["password"])
        #expect(redaction.redactBody(body, contentType: "application/json") == body)
        #expect(redaction.redactBody(body, contentType: nil) == body)
    }

    @Test(arguments: [
        #"{"password": "x""#,
        #"{"password": "x",}"#,
        #"{"password": 01}"#,
        #"{"password": "x"} trailing"#,
        #"{'password': 'x'}"#,
        "{\"password\": \"a\u{1}b\"}",
        #"{"password": "\q"}"#,
        #"[{"password": tru}]"#,
    ])
    func invalidJSONIsUnchanged(text: String) {
        let body = json(text)
        #expect(Redaction(sensitiveJSONFields: ["password"]).redactBody(body, contentType: "application/json") == body)
    }

    @Test func nonJSONContentTypesAreNotTouched() {
        let body = json(#"{"password": "\#(secret)"}"#)
        let redaction = Redaction(sensitiveJSONFields: ["password"])
        #expect(redaction.redactBody(body, contentType: "text/plain") == body)
        #expect(redaction.redactBody(body, contentType: nil) != body)
        #expect(redaction.redactBody(json("password=\(secret)"), contentType: nil) == json("password=\(secret)"))
    }

    // MARK: Form bodies

    private let form = "application/x-www-form-urlencoded; charset=utf-8"

    @Test func formFieldsNamedAsQueryItemsOrJSONFieldsAreHidden() {
        let redaction = Redaction(sensitiveQueryItems: ["token"], sensitiveJSONFields: ["password"])
        let body = json("user=ann&Password=\(secret)&token=a%20\(secret)&keep=1&&flag")
        let redacted = redaction.redactBody(body, contentType: form)
        #expect(String(decoding: redacted, as: UTF8.self)
            == "user=ann&Password=%3Cprivate%3E&token=%3Cprivate%3E&keep=1&&flag")
    }

    @Test func formNamesAreComparedDecoded() {
        let redaction = Redaction(sensitiveJSONFields: ["password", "api key"])
        let body = json("pass%77ord=\(secret)&api+key=\(secret)&x=1")
        let redacted = redaction.redactBody(body, contentType: "Application/X-WWW-Form-URLEncoded")
        #expect(!contains(redacted, secret))
        #expect(String(decoding: redacted, as: UTF8.self) == "pass%77ord=%3Cprivate%3E&api+key=%3Cprivate%3E&x=1")
    }

    @Test func formsWithoutSecretsOrOtherTypesAreUnchanged() {
        let redaction = Redaction(sensitiveJSONFields: ["password"])
        let plain = json("user=ann&note=password&x=")
        #expect(redaction.redactBody(plain, contentType: form) == plain)
        let secretForm = json("password=\(secret)")
        #expect(redaction.redactBody(secretForm, contentType: "text/plain") == secretForm)
        #expect(Redaction.disabled.redactBody(secretForm, contentType: form) == secretForm)
    }

    @Test func escapedKeysAndAnyValueTypeAreHidden() {
        let body = json(#"{"pass\u0077ord": [1, 2, {"x": "\#(secret)"}], "a": {"password": 12345}}"#)
        let redacted = Redaction(sensitiveJSONFields: ["password"]).redactBody(body, contentType: nil)
        #expect(redacted == json(#"{"pass\u0077ord": "<private>", "a": {"password": "<private>"}}"#))
    }

    /// Plain ASCII keys are compared on their bytes, other keys as strings: names that are not
    /// ASCII, the empty name, and a key that is a longer or shorter spelling still decide alike.
    @Test func keysMatchNamesOfEveryKindExactly() {
        let redaction = Redaction(sensitiveJSONFields: ["Contraseña", "", "pin"])
        let body = json(#"{"CONTRASEÑA": 1, "": 2, "PIN": 3, "pins": 4, "pi": 5, "contrasena": 6}"#)
        #expect(redaction.redactBody(body, contentType: "application/json") == json(
            #"{"CONTRASEÑA": "<private>", "": "<private>", "PIN": "<private>", "pins": 4, "pi": 5, "contrasena": 6}"#))
    }

    /// The pre-check that skips the scanner for bodies holding none of the names must not skip a
    /// key spelled only through an escape, in another case, or through Unicode lowercasing.
    @Test(arguments: [
        #"{"pa\u0073sword": "hunter2"}"#,
        #"{"PassWord": "hunter2"}"#,
        "{\"api_\u{212A}ey\": \"hunter2\"}",  // KELVIN SIGN, which lowercases to "k"
        #"{"x": {"y": [{"CLIENT_SECRET": "hunter2"}]}}"#,
    ])
    func keysTheQuickPreCheckCannotSeeAreStillHidden(_ text: String) {
        let redacted = Redaction().redactBody(json(text), contentType: "application/json")
        #expect(!contains(redacted, "hunter2"), "\(String(decoding: redacted, as: UTF8.self))")
        #expect(contains(redacted, "<private>"))
    }

    /// The pre-check never says "no" for a body holding a name, in any case, at any place; it
    /// declines names the body could spell with escapes.
    @Test func thePreCheckNeverMissesAName() throws {
        let precheck = try #require(Redaction.KeyPrecheck(names: Redaction.defaultSensitiveJSONFields))
        var random = SeededRandom(seed: 5)
        let filler = Array(#"{"orders":[{"id":12,"state":"paid","total":"9.99"}],"page":2} "#.utf8)
        for name in Redaction.defaultSensitiveJSONFields {
            for _ in 0..<20 {
                var body = (0..<Int(random.next() % 200)).map { filler[$0 % filler.count] }
                let cased = name.utf8.map { byte -> UInt8 in
                    let isLetter = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
                    return isLetter && random.next() % 2 == 0 ? byte - 32 : byte
                }
                body.insert(contentsOf: cased, at: body.isEmpty ? 0 : Int(random.next() % UInt64(body.count)))
                #expect(body.withUnsafeBytes { precheck.mayHoldKey(in: $0) }, "\(name)")
            }
        }
        #expect(!Array(filler).withUnsafeBytes { precheck.mayHoldKey(in: $0) })
        #expect(Redaction.KeyPrecheck(names: ["a/b"]) == nil)
        #expect(Redaction.KeyPrecheck(names: [""]) == nil)
        #expect(Redaction.KeyPrecheck(names: ["clé"]) == nil)
    }

    @Test func stringsEndAtTheirQuoteWhereverItFallsInAWord() {
        // The scanner skips plain string bytes eight at a time: a quote, an escape or a control
        // character at any offset must still be found, with ASCII or multi-byte text around it.
        let redaction = Redaction(sensitiveJSONFields: ["password"])
        for filler in ["a", "é"] {
            for length in 0...20 {
                let plain = String(repeating: filler, count: length)
                for inner in ["", #"\""#, #"\\"#, #"\u0041"#, #"\n"#] {
                    let value = plain + inner + plain
                    let body = json(#"{"note":""# + value + #"","password":""# + value + #"","n":1}"#)
                    let expected = json(#"{"note":""# + value + #"","password":"<private>","n":1}"#)
                    #expect(redaction.redactBody(body, contentType: "application/json") == expected, "\(value)")
                }
                // An unescaped control character makes the body invalid JSON: it is kept as is.
                for control in ["\n", "\t", "\u{1F}"] {
                    let body = json(#"{"note":""# + plain + control + plain + #"","password":"x"}"#)
                    #expect(redaction.redactBody(body, contentType: "application/json") == body)
                }
            }
        }
    }

    @Test func topLevelArraysAndBOMAreHandled() {
        let bom = Data([0xEF, 0xBB, 0xBF])
        let body = bom + json(#"[{"token": "\#(secret)"}]"#)
        let redacted = Redaction(sensitiveJSONFields: ["token"]).redactBody(body, contentType: "application/json")
        #expect(redacted == bom + json(#"[{"token": "<private>"}]"#))
    }

    @Test func hostileDeepNestingDoesNotCrash() {
        let depth = 200_000
        let redaction = Redaction(sensitiveJSONFields: ["password"])
        // Valid, very deep, with the secret at the bottom: still found.
        let deep = String(repeating: #"{"a":["#, count: depth) + #"{"password":"\#(secret)"}"#
            + String(repeating: "]}", count: depth)
        let redacted = redaction.redactBody(json(deep), contentType: "application/json")
        #expect(!contains(redacted, secret))
        #expect(redacted.count == deep.utf8.count - secret.utf8.count + "<private>".utf8.count)
        // Unterminated nesting is invalid JSON: returned unchanged.
        let open = json(String(repeating: "[", count: depth))
        #expect(redaction.redactBody(open, contentType: nil) == open)
    }

    @Test func invalidUTF8AndHugeBodiesDoNotCrash() {
        let redaction = Redaction(sensitiveJSONFields: ["password"])
        let garbage = Data([0x7B, 0xFF, 0xFE, 0x22, 0xC3, 0x28, 0x7D])
        #expect(redaction.redactBody(garbage, contentType: "application/json") == garbage)
        // Invalid UTF-8 inside a string value does not stop the key next to it from being hidden.
        let mixed = json(#"{"note": ""#) + Data([0xFF, 0xC3]) + json(#"", "password": "\#(secret)"}"#)
        #expect(!contains(redaction.redactBody(mixed, contentType: nil), secret))

        var huge = json(#"{"items": ["#)
        for index in 0..<100_000 { huge += json(#"{"id": \#(index), "name": "item"},"#) }
        huge += json(#"{"password": "\#(secret)"}]}"#)
        let redacted = redaction.redactBody(huge, contentType: "application/json")
        #expect(!contains(redacted, secret))
        #expect(redacted.count == huge.count - secret.utf8.count + "<private>".utf8.count)
    }

    @Test func bodiesAreLeftAloneWithoutConfiguredFields() {
        let body = json(#"{"password": "\#(secret)"}"#)
        #expect(Redaction(sensitiveJSONFields: []).redactBody(body, contentType: "application/json") == body)
        #expect(Redaction.disabled.redactBody(body, contentType: "application/json") == body)
    }

    @Test func redactionValuesCompareByTheirSets() {
        #expect(Redaction() == Redaction(
            sensitiveHeaders: ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"],
            sensitiveQueryItems: Redaction.defaultSensitiveQueryItems,
            sensitiveJSONFields: Redaction.defaultSensitiveJSONFields))
        #expect(Redaction() != Redaction(sensitiveQueryItems: ["token"]))
    }

    // MARK: Defaults

    @Test(arguments: ["password", "PASSWD", "Secret", "token", "access_token", "refresh_token", "id_token", "api_key",
                      "apikey", "client_secret", "private_key"])
    func theDefaultsHideTheUsualJSONFieldsInAnyCase(name: String) {
        let body = json(#"{"user": "ann", "\#(name)": "\#(secret)"}"#)
        let redacted = Redaction().redactBody(body, contentType: "application/json")
        #expect(redacted == json(#"{"user": "ann", "\#(name)": "<private>"}"#))
        let form = Redaction().redactBody(json("user=ann&\(name)=\(secret)"), contentType: self.form)
        #expect(!contains(form, secret))
    }

    @Test(arguments: ["token", "ACCESS_TOKEN", "api_key", "apikey", "password", "signature", "sig", "X-Amz-Signature"])
    func theDefaultsHideTheUsualQueryItemsInAnyCase(name: String) throws {
        let url = try #require(URL(string: "https://example.com/a?page=2&\(name)=\(secret)"))
        #expect(Redaction().redact(url).absoluteString == "https://example.com/a?page=2&\(name)=%3Cprivate%3E")
    }

    @Test func theListsCanBeExtendedOrCleared() {
        var redaction = Redaction()
        redaction.sensitiveJSONFields.insert("PIN")
        redaction.sensitiveQueryItems = []
        let body = json(#"{"pin": "\#(secret)", "password": "\#(secret)"}"#)
        #expect(redaction.redactBody(body, contentType: nil) == json(#"{"pin": "<private>", "password": "<private>"}"#))
        #expect(redaction.redactBody(json("sig=\(secret)"), contentType: form) == json("sig=\(secret)"))
    }

    @Test func passwordsOfURLsQuotedInTextAreHidden() {
        let text = "Could not connect to https://ann:\(secret)@example.com:8443/x?y=1 (and ftp://h/ p:q@x)"
        #expect(Redaction.hidingURLPasswords(in: text)
            == "Could not connect to https://ann:%3Cprivate%3E@example.com:8443/x?y=1 (and ftp://h/ p:q@x)")
        #expect(Redaction.hidingURLPasswords(in: "https://user@example.com/") == "https://user@example.com/")
        let error = Redaction().redact(NetworkError(code: 1, domain: "d", description: "\(text) token=x"))
        #expect(error.description
            == "Could not connect to https://ann:%3Cprivate%3E@example.com:8443/x?y=1 (and ftp://h/ p:q@x) token=x")
        let quoted = Redaction().redactURLs(in: "see <https://h.example/?sig=\(secret)&a=1>.")
        #expect(quoted == "see <https://h.example/?sig=%3Cprivate%3E&a=1>.")
    }
}
