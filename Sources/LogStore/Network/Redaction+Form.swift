import Foundation

extension Redaction {
    /// The form body (`application/x-www-form-urlencoded`) with the values of sensitive fields
    /// (``isSensitiveFormField(_:)``) replaced by `%3Cprivate%3E`; every other byte is kept, and
    /// the body itself is returned when nothing is hidden.
    ///
    /// Names are compared decoded (`+` is a space, `%XX` a byte), as a server reads them, so
    /// `pass%77ord` is `password`. A field without `=` has no value to hide.
    func redactForm(_ data: Data) -> Data {
        guard hasSensitiveFormFields else { return data }
        let ranges = data.withUnsafeBytes { bytes -> [Range<Int>] in
            var ranges: [Range<Int>] = []
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
                if let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")),
                    isSensitiveFormField(Self.decodedFormName(bytes[start..<equals]))
                {
                    ranges.append((equals + 1)..<end)
                }
                start = end + 1
            }
            return ranges
        }
        guard !ranges.isEmpty else { return data }
        return Self.replacing(ranges, in: data, with: Data("%3Cprivate%3E".utf8))
    }

    private static func decodedFormName(_ name: Slice<UnsafeRawBufferPointer>) -> String {
        let spaced = String(decoding: name.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
        return spaced.removingPercentEncoding ?? spaced
    }
}
