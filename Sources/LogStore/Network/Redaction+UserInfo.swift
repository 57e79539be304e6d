import Foundation

extension Redaction {
    /// The text with the password of every URL's user info (`scheme://user:secret@host`)
    /// replaced by `%3Cprivate%3E`: for text that may quote a URL (an error's description often
    /// names the failing URL) and for URLs Foundation cannot split into components.
    static func hidingURLPasswords(in text: String) -> String {
        guard text.contains("://") else { return text }
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard index + 3 <= bytes.count, bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"),
                bytes[index + 2] == UInt8(ascii: "/")
            else {
                result.append(bytes[index])
                index += 1
                continue
            }
            let start = index + 3
            var end = start
            while end < bytes.count, !Self.endsAuthority(bytes[end]) { end += 1 }
            let authority = bytes[start..<end]
            result.append(contentsOf: bytes[index..<start])
            // The user info ends at the authority's last `@`; its password starts at its first `:`.
            if let at = authority.lastIndex(of: UInt8(ascii: "@")),
                let colon = authority[..<at].firstIndex(of: UInt8(ascii: ":"))
            {
                result.append(contentsOf: bytes[start...colon])
                result.append(contentsOf: "%3Cprivate%3E".utf8)
                result.append(contentsOf: bytes[at..<end])
            } else {
                result.append(contentsOf: authority)
            }
            index = end
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func endsAuthority(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: " "), UInt8(ascii: "\t"),
            UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "<"),
            UInt8(ascii: ">"):
            return true
        default:
            return false
        }
    }

    /// The error with the URLs its description quotes redacted (their passwords and sensitive
    /// query items): URLSession's descriptions often name the failing URL.
    func redact(_ error: NetworkError) -> NetworkError {
        var error = error
        error.description = redactURLs(in: error.description)
        return error
    }

    /// The text with every URL it quotes (`scheme://…` up to a blank or a quote) redacted as
    /// ``redact(_:)-(URL)`` does; one that does not parse has its password hidden all the same.
    func redactURLs(in text: String) -> String {
        guard text.contains("://") else { return text }
        var result = ""
        var rest = text[...]
        while let separator = rest.range(of: "://") {
            var start = separator.lowerBound
            while start > rest.startIndex, Self.isSchemeCharacter(rest[rest.index(before: start)]) {
                start = rest.index(before: start)
            }
            let end = rest[separator.upperBound...].firstIndex(where: Self.endsQuotedURL) ?? rest.endIndex
            result += rest[..<start]
            let quoted = String(rest[start..<end])
            if start < separator.lowerBound, let url = URL(string: quoted) {
                result += redact(url).absoluteString
            } else {
                result += Self.hidingURLPasswords(in: quoted)
            }
            rest = rest[end...]
        }
        return result + rest
    }

    private static func isSchemeCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "+-.".contains(character))
    }

    private static func endsQuotedURL(_ character: Character) -> Bool {
        character.isWhitespace || "\"'<>".contains(character)
    }
}
