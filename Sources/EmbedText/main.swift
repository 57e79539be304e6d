// Turns text files into Swift string constants, at build time, for the EmbedViewerAssets plugin.
//
//     EmbedText OUTPUT.swift Type.member=PATH [Type.member=PATH …]
//
// writes OUTPUT.swift with one `extension Type { static let member = "…" }` per pair, holding the
// file's text. The library embeds the HTML viewer's script and style this way rather than as
// resources: a server is often deployed as the bare binary, and a resource bundle missing at run
// time would trap (`Bundle.module`), while a literal is always there.
//
// The text is the file's exactly, except one final newline, which is dropped: editors and linters
// want a file to end in a newline, and the page embeds the text without it. It goes into a plain
// one-line string literal with every character that could end or alter it escaped, so any file
// content round-trips.

import Foundation

/// Swift source for a string literal whose value is `text`.
func stringLiteral(_ text: String) -> String {
    var literal = "\""
    literal.reserveCapacity(text.utf8.count + text.utf8.count / 8 + 2)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": literal += "\\\\"
        case "\"": literal += "\\\""
        case "\n": literal += "\\n"
        case "\r": literal += "\\r"
        case "\t": literal += "\\t"
        default:
            // Other controls (and DEL) would be invisible or rejected in the source: spelt out.
            if scalar.value < 0x20 || scalar.value == 0x7F {
                literal += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                literal.unicodeScalars.append(scalar)
            }
        }
    }
    return literal + "\""
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("EmbedText: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
guard let outputPath = arguments.first, arguments.count > 1 else {
    fail("usage: EmbedText OUTPUT.swift Type.member=PATH [Type.member=PATH …]")
}

var source = "// Generated at build time by EmbedText (Sources/EmbedText) from the files named below: edit\n"
source += "// those, not this.\n"
for pair in arguments.dropFirst() {
    guard let equals = pair.firstIndex(of: "="),
          let dot = pair[..<equals].lastIndex(of: ".")
    else { fail("\(pair): expected Type.member=PATH") }
    let typeName = pair[..<dot]
    let member = pair[pair.index(after: dot)..<equals]
    let path = String(pair[pair.index(after: equals)...])
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    // Invalid UTF-8 would be repaired silently by String(decoding:); a broken asset should fail the build.
    guard var text = String(data: data, encoding: .utf8) else { fail("\(path) is not UTF-8") }
    if text.hasSuffix("\n") { text.removeLast() }
    let name = URL(fileURLWithPath: path).lastPathComponent
    source += "\nextension \(typeName) {\n"
    source += "    /// The text of \(name) (without its final newline).\n"
    source += "    static let \(member) = \(stringLiteral(text))\n"
    source += "}\n"
}

do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: outputPath), options: .atomic)
} catch {
    fail("cannot write \(outputPath): \(error)")
}
