/// Reads the stored metadata JSON of messages without `JSONDecoder`.
///
/// Reading messages was dominated by decoding their metadata through `Codable` (a `perf` profile
/// of the text export put ~53 % of its time there). This parser walks the UTF-8 bytes once and
/// builds ``LogStore/Metadata`` directly, copying strings without escapes in one go.
///
/// It answers only for input it is sure about, and `nil` sends the caller to the `JSONDecoder`
/// path, so every row reads back exactly as before. `JSONDecoder` validates structure up front
/// but strings and numbers only when a value is decoded, and ``LogStore/MetadataValue``'s
/// `init(from:)` turns a value that fails to decode into `""`; it also takes a byte order mark
/// and trailing commas. Imitating those corners would be easy to get subtly wrong for rows that
/// are rare (written by other tools), so the parser leaves them to it. What it takes itself:
/// strict RFC 8259 JSON whose top level is an object, at most ``maximumDepth`` containers deep,
/// whose strings hold no raw control character, no unknown escape and no lone surrogate, and
/// whose numbers are integers that fit `Int64`. It decodes those as the `Codable` path does:
/// - strings, arrays and objects as ``LogStore/MetadataValue/string(_:)``, `.array`, `.dictionary`;
/// - `true` / `false` as the strings `"true"` / `"false"`, `null` as `""`, an integer as its
///   `Int64` value's decimal text (so `-0` reads `"0"`);
/// - the **first** of duplicate keys wins (keys compared as Swift strings, so canonically
///   equivalent spellings are duplicates), as in `JSONDecoder`.
enum MetadataDecoder {
    /// Containers nested deeper than this (the top-level object counts as one) are left to
    /// `JSONDecoder`, which refuses more than 512; the bound also keeps the recursion's stack small.
    static let maximumDepth = 512

    /// The metadata `json` holds, or `nil` when the `JSONDecoder` path must decide.
    static func decode(_ json: String) -> LogStore.Metadata? {
        var json = json
        return json.withUTF8 { bytes in
            var parser = MetadataParser(bytes: bytes)
            do {
                return try parser.document()
            } catch {
                // Not an error for the user: the caller decodes with `JSONDecoder` instead.
                return nil
            }
        }
    }
}

/// The recursive-descent parser behind ``MetadataDecoder``, over one string's UTF-8 bytes.
private struct MetadataParser {
    /// Why the parser gave up: input it leaves to `JSONDecoder`. Carries nothing, so throwing it
    /// (a typed throw) costs no allocation.
    struct Unsupported: Error {}

    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    /// Reused for every string with escapes, so unescaping allocates once per document.
    var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func document() throws(Unsupported) -> LogStore.Metadata {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == ASCII.openBrace else { throw Unsupported() }
        let metadata = try object(depth: 1)
        skipWhitespace()
        guard position == bytes.count else { throw Unsupported() }
        return metadata
    }

    // MARK: Containers

    /// The object starting at `position` (on its `{`).
    private mutating func object(depth: Int) throws(Unsupported) -> LogStore.Metadata {
        guard depth <= MetadataDecoder.maximumDepth else { throw Unsupported() }
        position += 1
        var result: LogStore.Metadata = [:]
        skipWhitespace()
        if try peek() == ASCII.closeBrace {
            position += 1
            return result
        }
        while true {
            skipWhitespace()
            // After a comma a key must follow: a trailing comma is left to JSONDecoder.
            guard try peek() == ASCII.quote else { throw Unsupported() }
            let key = try string()
            skipWhitespace()
            guard try next() == ASCII.colon else { throw Unsupported() }
            skipWhitespace()
            let value = try value(depth: depth)
            // JSONDecoder keeps the first of duplicate keys.
            if result.index(forKey: key) == nil { result[key] = value }
            skipWhitespace()
            switch try next() {
            case ASCII.comma: continue
            case ASCII.closeBrace: return result
            default: throw Unsupported()
            }
        }
    }

    /// The array starting at `position` (on its `[`).
    private mutating func array(depth: Int) throws(Unsupported) -> [LogStore.MetadataValue] {
        guard depth <= MetadataDecoder.maximumDepth else { throw Unsupported() }
        position += 1
        var result: [LogStore.MetadataValue] = []
        skipWhitespace()
        if try peek() == ASCII.closeBracket {
            position += 1
            return result
        }
        while true {
            skipWhitespace()
            result.append(try value(depth: depth))
            skipWhitespace()
            switch try next() {
            case ASCII.comma: continue
            case ASCII.closeBracket: return result
            default: throw Unsupported()
            }
        }
    }

    /// A value inside a container at `depth`. A number or literal ends at the first byte that
    /// cannot continue it; the container then insists on `,`, `]`, `}` or whitespace, which
    /// rejects `01`, `1.5`, `truex` and the like.
    private mutating func value(depth: Int) throws(Unsupported) -> LogStore.MetadataValue {
        switch try peek() {
        case ASCII.quote: return .string(try string())
        case ASCII.openBrace: return .dictionary(try object(depth: depth + 1))
        case ASCII.openBracket: return .array(try array(depth: depth + 1))
        case UInt8(ascii: "t"):
            try literal("true")
            return .string("true")
        case UInt8(ascii: "f"):
            try literal("false")
            return .string("false")
        case UInt8(ascii: "n"):
            try literal("null")
            // MetadataValue's init(from:) reads what is neither string, container, bool nor number as "".
            return .string("")
        case ASCII.minus, ASCII.zero...ASCII.nine: return .string(String(try integer()))
        default: throw Unsupported()
        }
    }

    // MARK: Scalars

    private mutating func literal(_ word: StaticString) throws(Unsupported) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw Unsupported() }
        let start = word.utf8Start
        for offset in 0..<count where bytes[position + offset] != start[offset] {
            throw Unsupported()
        }
        position += count
    }

    /// `-?(0|[1-9][0-9]*)` within `Int64`; fractions, exponents and larger integers are left to
    /// JSONDecoder, whose Int64-then-Double reading they depend on.
    private mutating func integer() throws(Unsupported) -> Int64 {
        let negative = bytes[position] == ASCII.minus
        if negative { position += 1 }
        guard position < bytes.count, (ASCII.zero...ASCII.nine).contains(bytes[position]) else {
            throw Unsupported()
        }
        if bytes[position] == ASCII.zero {
            position += 1
            return 0
        }
        // Accumulated on the negative side, which holds Int64.min.
        var value: Int64 = 0
        while position < bytes.count, (ASCII.zero...ASCII.nine).contains(bytes[position]) {
            let digit = Int64(bytes[position] &- ASCII.zero)
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = shifted.subtractingReportingOverflow(digit)
            guard !overflowA, !overflowB else { throw Unsupported() }
            value = next
            position += 1
        }
        if negative { return value }
        guard value != .min else { throw Unsupported() }
        return -value
    }

    /// The string starting at `position` (on its opening quote).
    private mutating func string() throws(Unsupported) -> String {
        position += 1
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == ASCII.quote {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            }
            if byte == ASCII.backslash { return try escapedString(from: start) }
            // Raw control characters make JSONDecoder read the value as "": its business.
            guard byte >= 0x20 else { throw Unsupported() }
            position += 1
        }
        throw Unsupported()
    }

    /// The rest of a string from its first backslash (at `position`), its unescaped text built
    /// in ``scratch``. Only ASCII bytes end a run of copied bytes, so multi-byte characters of
    /// the (valid UTF-8) input are copied whole.
    private mutating func escapedString(from start: Int) throws(Unsupported) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case ASCII.quote:
                position += 1
                return String(decoding: scratch, as: UTF8.self)
            case ASCII.backslash:
                position += 1
                try unescape()
            case 0..<0x20:
                throw Unsupported()
            default:
                scratch.append(byte)
                position += 1
            }
        }
        throw Unsupported()
    }

    /// One escape, `position` just after its backslash.
    private mutating func unescape() throws(Unsupported) {
        let escape = try next()
        switch escape {
        case ASCII.quote, ASCII.backslash, ASCII.slash: scratch.append(escape)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hexQuad())
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate counts only with the low one right after it.
                guard try next() == ASCII.backslash, try next() == UInt8(ascii: "u") else { throw Unsupported() }
                let low = UInt32(try hexQuad())
                guard (0xDC00..<0xE000).contains(low) else { throw Unsupported() }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            // A lone low surrogate is not a scalar: JSONDecoder reads such a value as "".
            guard let unicodeScalar = Unicode.Scalar(scalar) else { throw Unsupported() }
            UTF8.encode(unicodeScalar) { scratch.append($0) }
        default:
            throw Unsupported()
        }
    }

    private mutating func hexQuad() throws(Unsupported) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = try next()
            let digit: UInt8
            switch byte {
            case ASCII.zero...ASCII.nine: digit = byte - ASCII.zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Unsupported()
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    // MARK: Bytes

    /// RFC 8259's four whitespace bytes only: JSONDecoder refuses the others too.
    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private func peek() throws(Unsupported) -> UInt8 {
        guard position < bytes.count else { throw Unsupported() }
        return bytes[position]
    }

    private mutating func next() throws(Unsupported) -> UInt8 {
        guard position < bytes.count else { throw Unsupported() }
        defer { position += 1 }
        return bytes[position]
    }
}

/// The bytes of JSON's punctuation.
private enum ASCII {
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let colon = UInt8(ascii: ":")
    static let comma = UInt8(ascii: ",")
    static let minus = UInt8(ascii: "-")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
}
