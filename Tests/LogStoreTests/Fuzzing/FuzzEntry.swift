import Foundation

@testable import LogStore

/// The entry points of the fuzz targets (`Scripts/fuzz.sh`, `Fuzz/`) and of the regression test
/// that replays their findings (`FuzzRegressionTests`): one function per reader of outside input.
///
/// Each takes the fuzzer's bytes and returns `nil`, or a finding: a sentence saying which property
/// of the reader the input broke. A crash is a finding too, caught by the sanitizers. Keeping the
/// checks here, and not in the harnesses, lets the test replay a saved input through exactly the
/// code the fuzzer ran, with `#expect` instead of a trap. They are test code, so they live in the
/// test target and not in the shipped library; `Scripts/fuzz.sh` compiles these same files into
/// each fuzz target (every `FuzzEntry*.swift`, with `Fuzz/<target>.swift`), against a library built
/// with `-enable-testing` for the `@testable import`.
enum FuzzEntry {
    /// The manifest (`manifest.json`) and an archive's info record, as the store decodes them: an
    /// input that decodes must encode, decode again, and encode to the same bytes a second time.
    static func decoders(_ data: Data) -> String? {
        if let finding = roundTrip(Manifest.self, data) { return "manifest: \(finding)" }
        if let finding = roundTrip(ArchiveInfo.self, data) { return "archive info: \(finding)" }
        return nil
    }

    /// The image header reader: a size it finds stays the same with bytes after the input, and
    /// when the input is a slice of a larger buffer (a `Data` whose indices do not start at 0).
    static func imageSize(_ data: Data) -> String? {
        let found = ImageSize.read(data)
        if let found, !(1...ImageSize.maxDimension).contains(found.width) || !(1...ImageSize.maxDimension).contains(found.height) {
            return "a size out of bounds: \(found)"
        }
        let sliced = (Data([0xA5]) + data).dropFirst()
        let fromSlice = ImageSize.read(sliced)
        guard fromSlice == found else { return "a slice reads \(String(describing: fromSlice)), the whole \(String(describing: found))" }
        if let found {
            let extended = ImageSize.read(data + Data(repeating: 0xFF, count: 16))
            guard extended == found else { return "trailing bytes turn \(found) into \(String(describing: extended))" }
        }
        return nil
    }

    /// Encodes what `data` decodes to (when it decodes) and checks that the encoding is stable.
    private static func roundTrip<T: Codable & Equatable>(_ type: T.Type, _ data: Data) -> String? {
        // Most inputs do not decode: that is the reader refusing them, which is its job.
        guard let first = try? StoreJSON.decoder.decode(T.self, from: data) else { return nil }
        do {
            let encoded = try StoreJSON.encoder.encode(first)
            let second = try StoreJSON.decoder.decode(T.self, from: encoded)
            let reencoded = try StoreJSON.encoder.encode(second)
            guard reencoded == encoded else { return "its encoding changes on a second round trip" }
            guard try StoreJSON.decoder.decode(T.self, from: reencoded) == second else {
                return "a second round trip decodes to another value"
            }
        } catch {
            return "it decodes, but its own encoding does not round-trip (\(error))"
        }
        return nil
    }
}
