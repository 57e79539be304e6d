/// A metadata key or value of a text line (`key=value`), for metadata read into a dictionary
/// and metadata written from its stored JSON alike.
extension [UInt8] {
    /// Appends `utf8` (well-formed UTF-8) as one scalar of a text line: in quotes, escaped by
    /// ``EscapeRules/quotedText``, when it is empty or holds a space, `=`, a quote, a bracket,
    /// a comma or a backslash, so a pair always reads back as one; else escaped by
    /// ``EscapeRules/text``.
    mutating func append(textScalar utf8: UnsafeBufferPointer<UInt8>) {
        let needsQuotes = utf8.isEmpty || utf8.contains { textScalarQuoted[Int($0)] }
        guard needsQuotes else { return append(escaping: utf8, .text) }
        append(UInt8(ascii: "\""))
        append(escaping: utf8, .quotedText)
        append(UInt8(ascii: "\""))
    }
}

/// Bytes that make a metadata key or value of a text line quoted.
private let textScalarQuoted: [Bool] = {
    var table = [Bool](repeating: false, count: 256)
    for character in " =\"{}[],\\" { table[Int(character.asciiValue ?? 0)] = true }
    return table
}()
