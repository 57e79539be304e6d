extension Redaction {
    /// The sensitive names that are ASCII, grouped by length, matched against a key's raw bytes
    /// ignoring ASCII case: most JSON keys are plain ASCII, and for those this decides without
    /// making a string, lowercasing it or hashing it (the scanner met ~80 keys per 2 KiB body).
    ///
    /// Equivalent to looking the lowercased key up among the folded names: an ASCII key
    /// lowercases to ASCII, so only the ASCII names can equal it.
    struct ASCIIKeyNames: Sendable, Hashable {
        /// `byLength[n]`: the names of `n` bytes, lowercase.
        private let byLength: [[[UInt8]]]

        /// - Parameter folded: the names, already lowercased.
        init(folded: Set<String>) {
            let names = folded.map { Array($0.utf8) }.filter { $0.allSatisfy { $0 < 0x80 } }
            var byLength = [[[UInt8]]](repeating: [], count: (names.map(\.count).max() ?? 0) + 1)
            for name in names.sorted(by: { $0.lexicographicallyPrecedes($1) }) { byLength[name.count].append(name) }
            self.byLength = byLength
        }

        /// Whether `key` (ASCII bytes, no escapes) is one of the names, ignoring ASCII case.
        func contains(_ key: UnsafeRawBufferPointer) -> Bool {
            guard key.count < byLength.count else { return false }
            for name in byLength[key.count] where Self.equalIgnoringCase(key, name) { return true }
            return false
        }

        private static func equalIgnoringCase(_ key: UnsafeRawBufferPointer, _ name: [UInt8]) -> Bool {
            for (byte, expected) in zip(key, name) {
                let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
                if lower != expected { return false }
            }
            return true
        }
    }
}
