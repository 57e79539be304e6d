import Foundation

extension HostSnapshot {
    // MARK: Parsers
    //
    // The os-release parser and the helpers every parser shares (the /proc ones are in
    // HostSnapshot+ProcFiles.swift). Pure functions over file text so tests can feed them anything. They must accept
    // whatever a kernel, distro or broken container hands over: unknown keys, odd
    // spacing, truncated lines, replacement characters from invalid UTF-8.
    //
    // They work on UTF-8 bytes rather than Characters: grapheme segmentation made
    // parsing cost several times more than reading the files, and every delimiter
    // involved is ASCII, so byte offsets are always valid split points.

    /// The fields of `os-release` that a snapshot keeps.
    struct OSRelease: Equatable {
        var name: String
        var version: String
        var prettyName: String
    }

    /// Parses `os-release` text (shell-like `KEY=value` lines, values optionally quoted).
    static func parseOSRelease(_ text: String) -> OSRelease {
        var name: String?
        var versionID: String?
        var version: String?
        var pretty: String?
        for line in lines(text) {
            let line = trimmedBytes(line)
            guard line.first != UInt8(ascii: "#"),
                  let equals = line.firstIndex(of: UInt8(ascii: "="))
            else { continue }
            let key = trimmedBytes(line[..<equals])
            let value = { unquoteShellValue(trimmedBytes(line[line.index(after: equals)...])) }
            // A repeated key keeps its last value, as it would for a shell sourcing the file.
            if key.elementsEqual("NAME".utf8) { name = value() }
            else if key.elementsEqual("VERSION_ID".utf8) { versionID = value() }
            else if key.elementsEqual("VERSION".utf8) { version = value() }
            else if key.elementsEqual("PRETTY_NAME".utf8) { pretty = value() }
        }

        let resolvedName = name ?? ""
        let resolvedVersion = [versionID, version].lazy.compactMap { $0 }.first { !$0.isEmpty } ?? ""
        var resolvedPretty = pretty ?? ""
        if resolvedPretty.isEmpty {
            resolvedPretty = [resolvedName, resolvedVersion].filter { !$0.isEmpty }.joined(separator: " ")
        }
        return OSRelease(name: resolvedName, version: resolvedVersion, prettyName: resolvedPretty)
    }

    /// The text with ASCII whitespace and NULs removed from both ends; device-tree
    /// strings end in a NUL and sysfs values in a newline.
    static func trimmed(_ text: String) -> String {
        String(decoding: trimmedBytes(text.utf8[...]), as: UTF8.self)
    }

    // MARK: Parsing helpers

    typealias Bytes = Substring.UTF8View

    static func lines(_ text: String) -> [Bytes] {
        text.utf8[...].split(omittingEmptySubsequences: true) {
            $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r")
        }
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || (byte >= 0x09 && byte <= 0x0D) || byte == 0
    }

    static func trimmedBytes(_ bytes: Bytes) -> Bytes {
        guard let start = bytes.firstIndex(where: { !isSpace($0) }),
              let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[start...last]
    }

    private static func unquoteShellValue(_ value: Bytes) -> String {
        let doubleQuote = UInt8(ascii: "\""), singleQuote = UInt8(ascii: "'")
        guard let quote = value.first, quote == doubleQuote || quote == singleQuote else {
            return String(decoding: value, as: UTF8.self)
        }
        var body = value.dropFirst()
        // A missing closing quote is tolerated: the rest of the line is the value.
        if body.last == quote { body = body.dropLast() }
        guard quote == doubleQuote, body.contains(UInt8(ascii: "\\")) else {
            return String(decoding: body, as: UTF8.self)
        }

        var result: [UInt8] = []
        result.reserveCapacity(body.count)
        var escaping = false
        for byte in body {
            if !escaping && byte == UInt8(ascii: "\\") {
                escaping = true
            } else {
                result.append(byte)
                escaping = false
            }
        }
        if escaping { result.append(UInt8(ascii: "\\")) }
        return String(decoding: result, as: UTF8.self)
    }
}
