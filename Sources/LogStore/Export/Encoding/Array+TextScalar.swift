/// A metadata key or value of a text line (`key=value`), for metadata read into a dictionary
/// and metadata written from its stored JSON alike.
extension [UInt8] {
    /// Appends `utf8` (well-formed UTF-8) as one scalar of a text line: in quotes, escaped by
    /// ``EscapeRules/quotedText``, when it is empty or holds a space, `=`, a quote, a bracket,
    /// a comma or a backslash, so a pair always reads back as one; else escaped by
    /// ``EscapeRules/text``.
    mutating func append(textScalar utf8: UnsafeBufferPointer<UInt8>, _ tables: TextScalarTables = .current) {
        let needsQuotes = utf8.isEmpty || utf8.contains { tables.quoted[Int($0)] }
        guard needsQuotes else { return append(escaping: utf8, tables.plain) }
        append(UInt8(ascii: "\""))
        append(escaping: utf8, tables.inQuotes)
        append(UInt8(ascii: "\""))
    }
}

/// What a text scalar is written with, read once by a writer of many rows: each of these globals
/// costs a `swift_once` check per access, which was 4 % of a text export's CPU read per value.
struct TextScalarTables {
    /// Bytes that make a scalar quoted.
    let quoted: [Bool]
    /// ``EscapeRules/text``, for a scalar without quotes.
    let plain: EscapeRules
    /// ``EscapeRules/quotedText``, for a scalar in quotes.
    let inQuotes: EscapeRules

    static var current: TextScalarTables {
        TextScalarTables(quoted: textScalarQuoted, plain: .text, inQuotes: .quotedText)
    }
}

/// Bytes that make a metadata key or value of a text line quoted.
private let textScalarQuoted: [Bool] = {
    var table = [Bool](repeating: false, count: 256)
    for character in " =\"{}[],\\" { table[Int(character.asciiValue ?? 0)] = true }
    return table
}()
