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
    static func string(from date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    static func date(from text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
