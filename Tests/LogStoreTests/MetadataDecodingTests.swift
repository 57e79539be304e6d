import Foundation
@testable import LogStore
import Testing

/// Reading stored metadata JSON: the hand-written ``MetadataDecoder`` must give what the
/// `JSONDecoder` path gave for every input (including `_raw` for what that path refused), and
/// read everything the store itself writes without falling back.
@Suite struct MetadataDecodingTests {
    /// Inputs whose reading is compared with the `Codable` path's. Many are corners where
    /// JSONDecoder is lenient (it validates strings and numbers only when it decodes them, and
    /// MetadataValue turns what fails into "") or strict (depth, top level, trailing bytes).
    static let tricky: [String] = [
        // The store's own shape, and whitespace everywhere.
        #"{}"#, #"{"a":"b"}"#, " \t\r\n{ \t\r\n\"a\" \t\r\n: \t\r\n\"b\" \t\r\n, \"c\" : [ \"d\" , { } ] \t\r\n} \t\r\n",
        #"{"":""}"#, #"{"a":{}}"#, #"{"a":[]}"#, #"{"a":[[],{},[[]],{"b":{"c":[]}}]}"#,
        #"{"request":{"headers":{"accept":"*/*"},"id":"r-1"},"tags":["a","b c"],"user":"42"}"#,
        // Escapes.
        #"{"a":"\"\\\/\b\f\n\r\t"}"#, #"{"\n\"key\\":"v"}"#, #"{"a":"\u0000\u001f\u0020\u007f\u00e9\u2028\uFEFF\uffff\uFFFE"}"#,
        #"{"a":"\u00E9","b":"e\u0301"}"#, #"{"a":"x\u0041y"}"#, #"{"a":"\U0041"}"#, #"{"a":"\x"}"#, #"{"a":"\'"}"#,
        #"{"a":"\u12"}"#, #"{"a":"\u12G4"}"#, #"{"a":"\u"}"#, #"{"a":"\"#, #"{"\x":"v"}"#,
        // Surrogates: pairs, lone halves, reversed, doubled.
        #"{"a":"\ud83d\ude00"}"#, #"{"a":"\uD83D\uDE00 and \uDBFF\uDFFF"}"#, #"{"a":"\ud800"}"#, #"{"a":"\udc00"}"#,
        #"{"a":"\ud800\u0041"}"#, #"{"a":"\ude00\ud83d"}"#, #"{"a":"\ud83d\ud83d\ude00"}"#, #"{"a":"\ud83dx"}"#,
        #"{"\ud800":"lone surrogate key"}"#, #"{"a":["\udc00","fine"]}"#,
        // Raw characters: unicode, controls, DEL.
        "{\"é\":\"日本語 😀 \u{202E}rtl \u{2028}\"}", "{\"a\":\"\u{1}\"}", "{\"a\":\"\t\"}", "{\"a\":\"\0\"}",
        "{\"a\":\"\u{7F}\"}", "{\"k\u{1}\":\"v\"}", "{\"\u{e9}\":\"1\",\"e\u{301}\":\"2\"}",
        // Numbers, booleans, null.
        #"{"a":1,"b":true}"#, #"{"a":null}"#, #"{"a":false,"b":0,"c":-0,"d":-5,"e":1E+2,"f":1e-2,"g":1.0,"h":1.5}"#,
        #"{"a":[null,1,true,1.5,-0,1e2,1.0,0.1,2.5e-324]}"#,
        #"{"a":9223372036854775807,"b":-9223372036854775808,"c":9223372036854775808,"d":-9223372036854775809}"#,
        #"{"a":12345678901234567890,"b":100000000000000000000000,"c":9007199254740993,"d":9007199254740993.0}"#,
        #"{"a":1e400,"b":-1e400,"c":1.7976931348623157e309,"d":-0.0}"#,
        #"{"a":01}"#, #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":+1}"#, #"{"a":-}"#, #"{"a":1e}"#, #"{"a":0x10}"#,
        #"{"a":NaN}"#, #"{"a":Infinity}"#, #"{"a":tru}"#, #"{"a":truex}"#, #"{"a":nul}"#, #"{"a":True}"#,
        // Duplicate keys, at the top and nested.
        #"{"a":1,"a":2}"#, #"{"a":"x","a":"y"}"#, #"{"a":{"b":"1","b":"2"},"a":"3"}"#, #"{"a":"\x","a":"y"}"#,
        // Not JSON, not an object, truncated, trailing bytes.
        "not json", " ", "\n", "{", "}", "[]", #"["a"]"#, #""x""#, "1", "true", "null",
        #"{"a""#, #"{"a":"#, #"{"a":"b""#, #"{"a":"b","#, #"{"a":["b""#, #"{"a":["b",]}"#, #"{"a":"b",}"#,
        #"{"a":"b"} x"#, #"{"a":"b"}{}"#, "{\"a\":\"b\"}\0", #"{"a" "b"}"#, #"{"a":"b" "c":"d"}"#, #"{a:"b"}"#,
        #"{'a':'b'}"#, #"{"a":"b"}/* comment */"#, #"{1:"b"}"#,
        // Odd whitespace and a byte order mark.
        "\u{FEFF}{}", "\u{FEFF}{\"a\":\"b\"}", "\u{C}{}", "\u{B}{}", "{}\u{A0}", "{\u{A0}}",
    ]

    @Test(arguments: tricky)
    func readsTrickyInputAsJSONDecoderDoes(_ json: String) {
        #expect(LogStore.decodeMetadata(json) == LogStore.decodeMetadataWithFoundation(json))
    }

    /// What the store writes, and what other tools commonly write, never needs JSONDecoder.
    @Test func answersWithoutJSONDecoderForCommonJSON() throws {
        let common: [(String, LogStore.Metadata)] = [
            (#"{}"#, [:]),
            (#"{"a":"b","c":["d",{"e":"f"}]}"#, ["a": "b", "c": ["d", ["e": "f"]]]),
            (#"{"a":1,"b":true,"c":false,"d":null,"e":-42,"f":0,"g":-0}"#,
             ["a": "1", "b": "true", "c": "false", "d": "", "e": "-42", "f": "0", "g": "0"]),
            (#"{"a":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}"#, ["a": .string("\"\\/\u{8}\u{C}\n\r\t\u{E9}\u{1F600}")]),
            (" { \"a\" : [ 1 , 2 ] } ", ["a": ["1", "2"]]),
            (#"{"a":"first","a":"second"}"#, ["a": "first"]),
        ]
        for (json, expected) in common {
            let decoded = try #require(MetadataDecoder.decode(json), "fell back for \(json)")
            #expect(decoded == expected, "\(json)")
            #expect(decoded == LogStore.decodeMetadataWithFoundation(json), "\(json)")
        }
    }

    /// Where JSONDecoder's leniency is hard to imitate, the parser leaves the decision to it.
    @Test func leavesLenientCornersToJSONDecoder() {
        for json in [#"{"a":1.5}"#, #"{"a":1e2}"#, #"{"a":"\ud800"}"#, #"{"a":"\x"}"#, #"{"a":"b",}"#, "\u{FEFF}{}",
                     "{\"a\":\"\t\"}", #"{"a":9223372036854775808}"#, "not json"] {
            #expect(MetadataDecoder.decode(json) == nil, "\(json)")
        }
    }

    @Test(arguments: [1, 100, 200, 510, 511, 512, 513, 2_000])
    func deepNestingReadsAsJSONDecoderDoes(_ depth: Int) {
        let arrays = "{\"a\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        let objects = String(repeating: "{\"a\":", count: depth) + "{}" + String(repeating: "}", count: depth)
        let mixed = "{\"a\":" + String(repeating: "[{\"b\":", count: depth / 2) + "\"x\""
            + String(repeating: "}]", count: depth / 2) + "}"
        // JSONDecoder takes 512 levels (the top-level object included) and refuses more.
        let accepted = depth < MetadataDecoder.maximumDepth
        var nestedArrays: LogStore.MetadataValue = .array([])
        var nestedObjects: LogStore.Metadata = [:]
        var nestedMixed: LogStore.MetadataValue = "x"
        if accepted {
            for _ in 1..<depth { nestedArrays = .array([nestedArrays]) }
            for _ in 0..<depth { nestedObjects = ["a": .dictionary(nestedObjects)] }
            for _ in 0..<depth / 2 { nestedMixed = .array([.dictionary(["b": nestedMixed])]) }
        }
        let expected: [(json: String, metadata: LogStore.Metadata)] = [
            (arrays, accepted ? ["a": nestedArrays] : ["_raw": .string(arrays)]),
            (objects, accepted ? nestedObjects : ["_raw": .string(objects)]),
            (mixed, accepted ? ["a": nestedMixed] : ["_raw": .string(mixed)]),
        ]
        for (json, metadata) in expected {
            #expect(LogStore.decodeMetadata(json) == metadata)
            // The Codable path takes time quadratic in the depth (over a second at 500 levels):
            // compared directly where it is quick.
            if depth <= 200 || !accepted {
                #expect(metadata == LogStore.decodeMetadataWithFoundation(json))
            }
        }
    }

    @Test func hugeStringsAndManyKeysReadAsJSONDecoderDoes() throws {
        let plain = String(repeating: "abcdéf日本😀", count: 50_000)
        let escaped = String(repeating: "a\\n\\\"\\u00e9\\ud83d\\ude00", count: 50_000)
        let keys = (0..<5_000).map { "\"key\($0)\":\"value \($0)\"" }.joined(separator: ",")
        for json in ["{\"a\":\"\(plain)\"}", "{\"a\":\"\(escaped)\"}", "{\(keys)}", "{\"\(plain)\":[\"\(escaped)\"]}"] {
            let decoded = try #require(MetadataDecoder.decode(json))
            #expect(decoded == LogStore.decodeMetadataWithFoundation(json))
        }
    }

    /// Random metadata, written by the store's own writer, reads back equal, without JSONDecoder.
    @Test func randomMetadataRoundTrips() throws {
        var random = SeededRandom(seed: 0x4D45_5441)
        for round in 0..<400 {
            let metadata = RandomMetadata.metadata(depth: 0, using: &random)
            let json = MetadataJSON.encode(metadata)
            let decoded = try #require(MetadataDecoder.decode(json), "round \(round): fell back for \(json)")
            #expect(decoded == metadata, "round \(round): \(json)")
            #expect(decoded == LogStore.decodeMetadataWithFoundation(json), "round \(round): \(json)")
        }
    }

    /// Truncated and corrupted JSON (bytes cut or replaced by JSON punctuation) reads as the
    /// `Codable` path reads it, `_raw` included.
    @Test func damagedJSONReadsAsJSONDecoderDoes() {
        var random = SeededRandom(seed: 0x4441_4D47)
        let replacements = Array(#"{}[]",:\"u0123456789-.eE+ tfn"#.utf8) + [0x00, 0x0A, 0xE9]
        for round in 0..<400 {
            var bytes = Array(MetadataJSON.encode(RandomMetadata.metadata(depth: 0, using: &random)).utf8)
            if round.isMultiple(of: 2) {
                bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))
            } else {
                for _ in 0...Int.random(in: 0..<3, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = replacements.randomElement(using: &random) ?? 0
                }
            }
            let json = String(decoding: bytes, as: UTF8.self)
            guard !json.isEmpty else { continue }
            #expect(LogStore.decodeMetadata(json) == LogStore.decodeMetadataWithFoundation(json), "round \(round): \(json)")
        }
    }

    /// Rows another tool added with `sqlite3` read back through the public API as they did with
    /// the `Codable` path.
    @Test(.enabled(if: SQLiteShell.isAvailable, "needs /usr/bin/sqlite3"))
    func metadataWrittenByAnotherToolReadsBackAsBefore() async throws {
        let written: [(sql: String, expected: LogStore.Metadata)] = [
            (#"{"a":1,"b":true}"#, ["a": "1", "b": "true"]),
            (#"{"n":null,"f":1.5,"e":1e2,"big":12345678901234567890}"#,
             ["n": "", "f": "1.5", "e": "100", "big": "1.2345678901234567e+19"]),
            (#"{ "nested" : { "list" : [ 1, false, "x\u00e9" ] } }"#, ["nested": ["list": ["1", "false", "xé"]]]),
            (#"{"dup":"first","dup":"second"}"#, ["dup": "first"]),
            (#"{"bad":"\ud800","ok":"y"}"#, ["bad": "", "ok": "y"]),
            (#"[1,2]"#, ["_raw": #"[1,2]"#]),
            (#"not json"#, ["_raw": "not json"]),
        ]
        try await withTemporaryStoreURL { url in
            try await withStore(at: url) { store in
                store.storeMessage(label: "tool", level: .info, message: "seed", metadata: ["x": "y"])
                try await store.flush()
            }
            for (index, row) in written.enumerated() {
                let literal = row.sql.replacingOccurrences(of: "'", with: "''")
                try SQLiteShell.run(
                    url.appendingPathComponent("logs.sqlite"),
                    // A logged message is never changed (the full-text index relies on it): the
                    // tool adds rows beside the store's own.
                    """
                    INSERT INTO messages (created_at, session_id, level, label_id, text, metadata)
                    SELECT created_at, session_id, level, label_id, 'row \(index)', '\(literal)' FROM messages WHERE text = 'seed'
                    """)
            }
            try await withStore(at: url, options: [.readonly]) { store in
                let messages = try await allMessages(store).filter { $0.text != "seed" }
                try #require(messages.count == written.count)
                for (index, message) in messages.enumerated() {
                    #expect(message.text == "row \(index)")
                    #expect(message.metadata == written[index].expected, "\(written[index].sql)")
                    #expect(message.metadata == LogStore.decodeMetadataWithFoundation(written[index].sql))
                }
            }
        }
    }
}

/// Seeded random metadata with awkward strings: quotes, backslashes, control characters,
/// combining marks, separators, noncharacters and characters outside the BMP.
enum RandomMetadata {
    static func metadata(depth: Int, using random: inout SeededRandom) -> LogStore.Metadata {
        var metadata: LogStore.Metadata = [:]
        for _ in 0..<Int.random(in: 0...(depth == 0 ? 6 : 3), using: &random) {
            metadata[string(using: &random)] = value(depth: depth + 1, using: &random)
        }
        return metadata
    }

    static func value(depth: Int, using random: inout SeededRandom) -> LogStore.MetadataValue {
        switch depth < 4 ? Int.random(in: 0..<10, using: &random) : 0 {
        case 0...5: return .string(string(using: &random))
        case 6: return .stringConvertible(Int.random(in: Int.min...Int.max, using: &random))
        case 7, 8:
            return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in value(depth: depth + 1, using: &random) })
        default: return .dictionary(metadata(depth: depth, using: &random))
        }
    }

    private static let awkward: [Unicode.Scalar] = [
        "\"", "\\", "/", "\0", "\u{1}", "\u{8}", "\t", "\n", "\u{C}", "\r", "\u{1F}", "\u{7F}", "\u{80}", "\u{E9}",
        "\u{301}", "\u{2028}", "\u{2029}", "\u{202E}", "\u{FEFF}", "\u{FFFD}", "\u{FFFE}", "\u{FFFF}", "\u{1F600}",
        "\u{10FFFF}", "日", "{", "}", "[", "]", ":", ",",
    ]

    static func string(using random: inout SeededRandom) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &random) {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: scalars.append(awkward.randomElement(using: &random) ?? "a")
            case 1: scalars.append(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &random)))
            default:
                // Any scalar: the surrogate range is not one, so it is skipped.
                let value = UInt32.random(in: 0...0x10FFFF, using: &random)
                scalars.append(Unicode.Scalar(value) ?? "x")
            }
        }
        return String(scalars)
    }
}
