import Foundation

/// JSON responses of the console's API.
enum JSONBody {
    /// `value` encoded, as a response.
    static func response(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        do {
            let data = try makeEncoder().encode(value)
            return ResponseHeaders.response(status, contentType: contentType, Array(data))
        } catch {
            // Only a non-finite Double fails to encode; none of the API's values is one.
            return ResponseHeaders.response(500, contentType: contentType, Array(#"{"error":"the answer could not be encoded"}"#.utf8))
        }
    }

    /// `value` encoded as one line, for a Server-Sent Event's `data:`.
    static func line(_ value: some Encodable) throws -> String {
        String(decoding: try makeEncoder().encode(value), as: UTF8.self)
    }

    /// Keys sorted (stable output for tests and diffs), dates as seconds since 1970 (what a
    /// script's `new Date(s * 1000)` reads).
    private static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    static let contentType = "application/json; charset=utf-8"
}
