/// Integers as ASCII digits, written into the output buffer: `String(value)` per field would
/// allocate a string per number of every row.
extension [UInt8] {
    /// Appends `value` in decimal.
    mutating func append(decimal value: some BinaryInteger) {
        guard value != 0 else { return append(UInt8(ascii: "0")) }
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = UInt64(value.magnitude)
        let start = count
        while magnitude > 0 {
            append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        }
        self[start...].reverse()
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
