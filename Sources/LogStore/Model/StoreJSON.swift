import Foundation

/// The JSON settings of everything the store writes itself (manifest, snapshots, `--json`).
enum StoreJSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601withFractionalSeconds
        return encoder
    }()

    static let compactEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601withFractionalSeconds
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601withFractionalSeconds
        return decoder
    }()
}

extension JSONEncoder.DateEncodingStrategy {
    /// ISO 8601 with milliseconds, in UTC: readable, sortable and exact enough for logs.
    static var iso8601withFractionalSeconds: JSONEncoder.DateEncodingStrategy {
        .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601.string(from: date))
        }
    }
}

extension JSONDecoder.DateDecodingStrategy {
    /// Reads what ``JSONEncoder/DateEncodingStrategy/iso8601withFractionalSeconds`` writes (and
    /// timestamps without fractions).
    static var iso8601withFractionalSeconds: JSONDecoder.DateDecodingStrategy {
        .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ISO8601.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO 8601 date")
            }
            return date
        }
    }
}

/// ISO 8601 formatting without sharing a non-Sendable formatter across threads.
enum ISO8601 {
    /// `2026-03-01T12:30:00.250Z`: UTC, milliseconds rounded to the nearest.
    ///
    /// Foundation's fractional seconds are truncated in binary floating point, so a date read
    /// back from its own text could print a millisecond earlier on every round trip (before 1970,
    /// always: a manifest's dates drifted each time it was rewritten). The milliseconds are
    /// counted here in integers; Foundation only formats the whole seconds.
    static func string(from date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        // Beyond ±3 million years Int64 milliseconds and Foundation's calendar both give out.
        guard abs(milliseconds) < 1e17 else {
            return date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        }
        let total = Int64(milliseconds)
        var seconds = total / 1000
        var fraction = total % 1000
        if fraction < 0 {
            fraction += 1000
            seconds -= 1
        }
        let whole = Date(timeIntervalSince1970: TimeInterval(seconds))
            .formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false).timeZone(separator: .omitted))
        guard whole.last == "Z" else { return whole }
        let digits = String(fraction)
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    static func date(from text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
