import Foundation

@testable import LogStore

extension FuzzEntry {
    /// What the first byte of a redaction input picks; the rest is the body, headers or URL.
    enum RedactionMode: UInt8, CaseIterable {
        case jsonBody, sniffedBody, formBody, headers, url
    }

    /// The default redaction over a body, headers or a URL (the input's first byte picks which:
    /// ``RedactionMode``): whatever comes out must hide every sensitive value a reader of it would
    /// find — a JSON parser, a form decoder, a URL parser.
    static func redaction(_ input: Data) -> String? {
        guard let first = input.first else { return nil }
        let mode = RedactionMode.allCases[Int(first) % RedactionMode.allCases.count]
        let data = Data(input.dropFirst())
        let redaction = Redaction()
        switch mode {
        case .jsonBody, .sniffedBody:
            let output = redaction.redactBody(data, contentType: mode == .jsonBody ? "application/json; charset=utf-8" : nil)
            return jsonLeak(in: output, from: data, redaction: redaction)
        case .formBody:
            let output = redaction.redactBody(data, contentType: "application/x-www-form-urlencoded")
            return formLeak(in: output, redaction: redaction)
        case .headers:
            var headers: [String: String] = [:]
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                headers[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
            let output = redaction.redact(headers: headers)
            guard output.keys.sorted() == headers.keys.sorted() else { return "header names changed" }
            for (name, value) in output where redaction.isSensitiveHeader(name) && value != Redaction.placeholder {
                return "header \(name) kept its value"
            }
            return nil
        case .url:
            let text = String(decoding: data, as: UTF8.self)
            _ = Redaction.hidingURLPasswords(in: text)
            _ = redaction.redactURLs(in: text)
            guard let url = URL(string: text) else { return nil }
            return urlLeak(in: redaction.redact(url), redaction: redaction)
        }
    }

    /// A sensitive field of the redacted body that a JSON parser still reads a value from. Only
    /// UTF-8 bodies are checked: Foundation also reads UTF-16 and UTF-32, which the store does not
    /// treat as JSON.
    private static func jsonLeak(in output: Data, from input: Data, redaction: Redaction) -> String? {
        guard String(data: input, encoding: .utf8) != nil, !input.starts(with: [0xEF, 0xBB, 0xBF]),
            (try? JSONSerialization.jsonObject(with: input, options: [.fragmentsAllowed])) != nil
        else { return nil }
        guard let parsed = try? JSONSerialization.jsonObject(with: output, options: [.fragmentsAllowed]) else {
            return "valid JSON became invalid"
        }
        var pending: [Any] = [parsed]
        while let value = pending.popLast() {
            if let object = value as? [String: Any] {
                for (key, member) in object {
                    if redaction.isSensitiveJSONField(key), member as? String != Redaction.placeholder {
                        return "field \(key.debugDescription) kept its value"
                    }
                    pending.append(member)
                }
            } else if let array = value as? [Any] {
                pending.append(contentsOf: array)
            }
        }
        return nil
    }

    /// A sensitive field of the redacted form body whose value is not the placeholder.
    private static func formLeak(in output: Data, redaction: Redaction) -> String? {
        for field in output.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
            guard let equals = field.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let spaced = String(decoding: field[..<equals].map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
            let name = spaced.removingPercentEncoding ?? spaced
            if redaction.isSensitiveFormField(name), Data(field[(equals + 1)...]) != Data("%3Cprivate%3E".utf8) {
                return "form field \(name.debugDescription) kept its value"
            }
        }
        return nil
    }

    /// A password or sensitive query item of the redacted URL that a URL parser still reads.
    private static func urlLeak(in output: URL, redaction: Redaction) -> String? {
        guard let components = URLComponents(url: output, resolvingAgainstBaseURL: false) else { return nil }
        if let password = components.percentEncodedPassword, password != "%3Cprivate%3E" {
            return "the URL kept its password"
        }
        for item in components.percentEncodedQueryItems ?? [] {
            let name = item.name.removingPercentEncoding ?? item.name
            if redaction.isSensitiveQueryItem(name), let value = item.value, value != "%3Cprivate%3E" {
                return "query item \(name.debugDescription) kept its value"
            }
        }
        return nil
    }
}
