extension String {
    /// Calls `body` with the string's UTF-8 bytes, in place when the string is contiguous (native
    /// and small strings always are). Unlike `withUTF8`, it needs no mutable copy, whose retain
    /// and release on every bound column showed in the writer's profile.
    @inline(__always)
    func withUTF8Bytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        var copy = self
        return try copy.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
}
