/// Stored metadata JSON written out from its own bytes, without building a
/// ``LogStore/Metadata`` dictionary per row (which, with its strings, cost the exports more than
/// the rest of the row).
///
/// It takes only what it can write exactly as the dictionary path writes it (read by
/// `LogStore.decodeMetadata`, keys sorted at every level): well-formed UTF-8 holding one JSON
/// object whose values are strings, objects and arrays, at most ``maximumDepth`` deep, each
/// object's keys plain ASCII (no escape, no control) in strictly ascending order, strings with
/// no raw control character and no `\u` surrogate. That is what the store's own writer
/// (`MetadataJSON`, keys sorted) produces for ASCII keys. Anything else (numbers, booleans,
/// duplicate or unsorted keys, rows other tools wrote) returns `false` with nothing appended,
/// and the caller takes the dictionary path.
enum StoredMetadata {
    static let maximumDepth = 32

    /// Appends the metadata as a JSON object (NDJSON's `"metadata"`), strings escaped by
    /// `rules`; `false`, and nothing appended, for a shape it leaves to the dictionary path.
    static func appendJSON(
        _ json: UnsafeBufferPointer<UInt8>, _ rules: EscapeRules, to output: inout [UInt8], scratch: inout [UInt8]
    ) -> Bool {
        append(json, .json(rules), prefix: "", to: &output, scratch: &scratch)
    }

    /// Appends the metadata as the text export's `key=value` pairs after `prefix` (nothing at
    /// all, not even `prefix`, when it holds no key); `false`, and nothing appended, for a
    /// shape it leaves to the dictionary path.
    static func appendText(
        _ json: UnsafeBufferPointer<UInt8>, prefix: StaticString, tables: TextScalarTables = .current,
        to output: inout [UInt8], scratch: inout [UInt8]
    ) -> Bool {
        append(json, .text(tables), prefix: prefix, to: &output, scratch: &scratch)
    }

    private static func append(
        _ json: UnsafeBufferPointer<UInt8>, _ form: StoredMetadataWriter.Form, prefix: StaticString,
        to output: inout [UInt8], scratch: inout [UInt8]
    ) -> Bool {
        // The dictionary path reads the column as a `String`, which repairs bad UTF-8.
        guard UTF8Check.isValid(json) else { return false }
        let mark = output.count
        var writer = StoredMetadataWriter(input: json, form: form, scratch: scratch)
        defer { scratch = writer.scratch }
        do {
            try writer.document(prefix: prefix, to: &output)
            return true
        } catch {
            output.removeSubrange(mark...)
            return false
        }
    }
}

/// The one pass behind ``StoredMetadata``: parses and writes at once.
private struct StoredMetadataWriter {
    enum Form {
        case json(EscapeRules)
        case text(TextScalarTables)
    }

    /// Input left to the dictionary path. Carries nothing, so a typed throw of it allocates nothing.
    struct Unsupported: Error {}

    let input: UnsafeBufferPointer<UInt8>
    let form: Form
    /// Unescaped strings, reused from row to row.
    var scratch: [UInt8]
    var position = 0

    init(input: UnsafeBufferPointer<UInt8>, form: Form, scratch: [UInt8]) {
        self.input = input
        self.form = form
        self.scratch = scratch
    }

    mutating func document(prefix: StaticString, to output: inout [UInt8]) throws(Unsupported) {
        skipWhitespace()
        guard position < input.count, input[position] == Byte.openBrace else { throw Unsupported() }
        try object(depth: 1, prefix: prefix, to: &output)
        skipWhitespace()
        guard position == input.count else { throw Unsupported() }
    }

    /// The object at `position` (on its `{`). The text form writes the top level's pairs bare,
    /// after `prefix`, and a nested object in braces.
    private mutating func object(depth: Int, prefix: StaticString, to output: inout [UInt8]) throws(Unsupported) {
        guard depth <= StoredMetadata.maximumDepth else { throw Unsupported() }
        let isText: Bool
        if case .text = form { isText = true } else { isText = false }
        let isBare = isText && depth == 1
        position += 1
        if !isBare { output.append(Byte.openBrace) }
        skipWhitespace()
        var previousKey: Range<Int>?
        if try peek() != Byte.closeBrace {
            while true {
                skipWhitespace()
                guard try peek() == Byte.quote else { throw Unsupported() }
                let key = try plainKey()
                if let previousKey, !isAscending(previousKey, key) { throw Unsupported() }
                skipWhitespace()
                guard try next() == Byte.colon else { throw Unsupported() }
                skipWhitespace()
                if previousKey == nil {
                    if isBare { prefix.withUTF8Buffer { output.append(contentsOf: $0) } }
                } else {
                    output.append(isText ? Byte.space : Byte.comma)
                }
                let keyBytes = UnsafeBufferPointer(rebasing: input[key])
                switch form {
                case .text(let tables):
                    output.append(textScalar: keyBytes, tables)
                    output.append(Byte.equals)
                case .json(let rules):
                    output.append(Byte.quote)
                    output.append(escaping: keyBytes, rules)
                    output.append(Byte.quote)
                    output.append(Byte.colon)
                }
                try value(depth: depth, to: &output)
                previousKey = key
                skipWhitespace()
                switch try next() {
                case Byte.comma: continue
                case Byte.closeBrace: break
                default: throw Unsupported()
                }
                break
            }
        } else {
            position += 1
        }
        if !isBare { output.append(Byte.closeBrace) }
    }

    private mutating func array(depth: Int, to output: inout [UInt8]) throws(Unsupported) {
        guard depth <= StoredMetadata.maximumDepth else { throw Unsupported() }
        position += 1
        output.append(Byte.openBracket)
        skipWhitespace()
        if try peek() == Byte.closeBracket {
            position += 1
        } else {
            var isFirst = true
            while true {
                skipWhitespace()
                if !isFirst { output.append(Byte.comma) }
                isFirst = false
                try value(depth: depth, to: &output)
                skipWhitespace()
                switch try next() {
                case Byte.comma: continue
                case Byte.closeBracket: break
                default: throw Unsupported()
                }
                break
            }
        }
        output.append(Byte.closeBracket)
    }

    /// A value inside a container at `depth`: a string, an object or an array (numbers and
    /// literals are the dictionary path's, which spells them as strings).
    private mutating func value(depth: Int, to output: inout [UInt8]) throws(Unsupported) {
        switch try peek() {
        case Byte.quote:
            let form = form
            try string { text in
                switch form {
                case .json(let rules):
                    output.append(Byte.quote)
                    output.append(escaping: text, rules)
                    output.append(Byte.quote)
                case .text(let tables):
                    output.append(textScalar: text, tables)
                }
            }
        case Byte.openBrace: try object(depth: depth + 1, prefix: "", to: &output)
        case Byte.openBracket: try array(depth: depth + 1, to: &output)
        default: throw Unsupported()
        }
    }

    /// A key of printable ASCII without escapes, whose byte order is its order as a Swift string.
    private mutating func plainKey() throws(Unsupported) -> Range<Int> {
        position += 1
        let start = position
        while position < input.count {
            let byte = input[position]
            if byte == Byte.quote {
                position += 1
                return start..<(position - 1)
            }
            guard byte >= 0x20, byte < 0x80, byte != Byte.backslash else { throw Unsupported() }
            position += 1
        }
        throw Unsupported()
    }

    private func isAscending(_ first: Range<Int>, _ second: Range<Int>) -> Bool {
        let common = min(first.count, second.count)
        for offset in 0..<common {
            let (a, b) = (input[first.lowerBound + offset], input[second.lowerBound + offset])
            if a != b { return a < b }
        }
        return first.count < second.count
    }

    /// The string at `position` (on its quote), unescaped, handed to `body`.
    private mutating func string(_ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(Unsupported) {
        position += 1
        let start = position
        while position < input.count {
            let byte = input[position]
            if byte == Byte.quote {
                body(UnsafeBufferPointer(rebasing: input[start..<position]))
                position += 1
                return
            }
            if byte == Byte.backslash { break }
            // A raw control character: the dictionary path's JSONDecoder decides.
            guard byte >= 0x20 else { throw Unsupported() }
            position += 1
        }
        guard position < input.count else { throw Unsupported() }
        // Escapes: unescaped into the scratch buffer. Runs end only at ASCII bytes, so the
        // (well-formed) input's multi-byte characters are copied whole.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: input[start..<position]))
        while position < input.count {
            let byte = input[position]
            position += 1
            switch byte {
            case Byte.quote:
                scratch.withUnsafeBufferPointer { body($0) }
                return
            case Byte.backslash: try unescape()
            case 0..<0x20: throw Unsupported()
            default: scratch.append(byte)
            }
        }
        throw Unsupported()
    }

    /// One escape, `position` just after its backslash.
    private mutating func unescape() throws(Unsupported) {
        let escape = try next()
        switch escape {
        case Byte.quote, Byte.backslash, UInt8(ascii: "/"): scratch.append(escape)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var value: UInt32 = 0
            for _ in 0..<4 {
                let digit = try next()
                let nibble: UInt8
                switch digit {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = digit - UInt8(ascii: "A") + 10
                default: throw Unsupported()
                }
                value = value << 4 | UInt32(nibble)
            }
            // Surrogates (pairs, and the lone ones JSONDecoder reads as "") are the dictionary path's.
            guard let scalar = Unicode.Scalar(value) else { throw Unsupported() }
            UTF8.encode(scalar) { scratch.append($0) }
        default:
            throw Unsupported()
        }
    }

    /// RFC 8259's four whitespace bytes only, as the dictionary path's reader.
    private mutating func skipWhitespace() {
        while position < input.count {
            switch input[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private func peek() throws(Unsupported) -> UInt8 {
        guard position < input.count else { throw Unsupported() }
        return input[position]
    }

    private mutating func next() throws(Unsupported) -> UInt8 {
        guard position < input.count else { throw Unsupported() }
        defer { position += 1 }
        return input[position]
    }
}

private enum Byte {
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let colon = UInt8(ascii: ":")
    static let comma = UInt8(ascii: ",")
    static let space = UInt8(ascii: " ")
    static let equals = UInt8(ascii: "=")
}
