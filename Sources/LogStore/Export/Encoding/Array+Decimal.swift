/// Integers as ASCII digits, written into the output buffer: `String(value)` per field would
/// allocate a string per number of every row.
extension [UInt8] {
    /// Appends `value` in decimal.
    mutating func append(decimal value: some BinaryInteger) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = UInt64(value.magnitude)
        guard magnitude >= 10 else { return append(UInt8(ascii: "0") + UInt8(magnitude)) }
        // Digits from the last, into 20 bytes on the stack (UInt64.max has 20), then one copy:
        // appending and reversing in place cost a bounds check and a uniqueness check a digit.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            while magnitude > 0 {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Appends `value`, which is not negative, in decimal with leading zeros to `width` digits.
    mutating func append(decimal value: Int64, width: Int) {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        for _ in digits..<Swift.max(digits, width) { append(UInt8(ascii: "0")) }
        append(decimal: value)
    }
}
