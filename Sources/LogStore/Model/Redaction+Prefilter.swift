extension Redaction {
    /// A one-pass test of whether a JSON body could hold a sensitive key, so the validating
    /// scanner runs only on bodies that might (most bodies hold none of the names).
    ///
    /// Conservative on purpose: any escape `\u` (it can spell a letter), any byte above ASCII (a
    /// key that Unicode lowercasing maps onto a name) or any occurrence of a name, in any case and
    /// anywhere (a value, a key, inside a word), sends the body to the scanner.
    struct KeyPrecheck: Sendable, Hashable {
        /// The names, lowercase ASCII, one after the other.
        private let bytes: [UInt8]
        /// Where each name starts in `bytes`, and where the last ends.
        private let starts: [Int]
        /// Per byte value: bit `n` when name `n` starts with that byte in either case, and
        /// ``alwaysScan`` for bytes that make the body go to the scanner at once.
        private let table: [UInt64]
        /// Per byte value: bit `n` when name `n`'s second byte is that byte in either case (or
        /// it has none): most letters that start a name are not followed by its second letter.
        private let second: [UInt64]

        private static let alwaysScan: UInt64 = 1 << 63
        private static let backslash: UInt64 = 1 << 62
        /// Names beyond this many are not pre-checked (the scanner always runs).
        static let maximumNames = 62

        /// `nil` when the names cannot be pre-checked: one is empty (an empty key is announced by
        /// no byte), not printable ASCII, or holds a byte JSON may escape (`"`, `\`, `/`: the
        /// body may then spell it differently); or there are too many.
        init?(names: Set<String>) {
            let sorted = names.sorted().map { Array($0.utf8) }
            func isPlain(_ byte: UInt8) -> Bool {
                byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
                    && byte != UInt8(ascii: "/")
            }
            guard sorted.count <= Self.maximumNames, sorted.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isPlain) })
            else { return nil }
            var bytes: [UInt8] = []
            var starts: [Int] = []
            var table = [UInt64](repeating: 0, count: 256)
            var second = [UInt64](repeating: 0, count: 256)
            func mark(_ table: inout [UInt64], _ byte: UInt8, _ bit: UInt64) {
                table[Int(byte)] |= bit
                if byte >= UInt8(ascii: "a"), byte <= UInt8(ascii: "z") { table[Int(byte - 32)] |= bit }
            }
            for (index, name) in sorted.enumerated() {
                starts.append(bytes.count)
                bytes += name
                let bit: UInt64 = 1 << UInt64(index)
                mark(&table, name[0], bit)
                if name.count > 1 {
                    mark(&second, name[1], bit)
                } else {
                    for byte in second.indices { second[byte] |= bit }
                }
            }
            starts.append(bytes.count)
            for byte in 0x80...0xFF { table[byte] = Self.alwaysScan }
            table[Int(UInt8(ascii: "\\"))] = Self.backslash
            self.bytes = bytes
            self.starts = starts
            self.table = table
            self.second = second
        }

        /// Whether `body` could hold one of the names as a key; `false` only when it cannot.
        func mayHoldKey(in body: UnsafeRawBufferPointer) -> Bool {
            table.withUnsafeBufferPointer { table in
                second.withUnsafeBufferPointer { second in
                bytes.withUnsafeBufferPointer { names in
                    starts.withUnsafeBufferPointer { starts in
                        let count = body.count
                        var index = 0
                        while index < count {
                            let mask = table[Int(body[index])]
                            if mask != 0 {
                                if mask == Self.alwaysScan { return true }
                                if mask == Self.backslash {
                                    if index + 1 < count, body[index + 1] == UInt8(ascii: "u") { return true }
                                } else {
                                    // A name of one byte is in every `second` entry; at the last
                                    // byte only those can match.
                                    var candidates = mask & (index + 1 < count ? second[Int(body[index + 1])] : second[0])
                                    while candidates != 0 {
                                        let name = candidates.trailingZeroBitCount
                                        candidates &= candidates - 1
                                        if Self.matches(names[starts[name]..<starts[name + 1]], body, at: index) { return true }
                                    }
                                }
                            }
                            index += 1
                        }
                        return false
                    }
                }
                }
            }
        }

        /// Whether `body` holds `name` (lowercase ASCII) at `index`, ignoring ASCII case; the
        /// first byte is known to match.
        private static func matches(
            _ name: Slice<UnsafeBufferPointer<UInt8>>, _ body: UnsafeRawBufferPointer, at index: Int
        ) -> Bool {
            guard index + name.count <= body.count else { return false }
            var position = index + 1
            for expected in name.dropFirst() {
                var byte = body[position]
                if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { byte += 32 }
                if byte != expected { return false }
                position += 1
            }
            return true
        }
    }
}
