import Foundation
import LogStore

/// The JSON the commands print: sorted keys, ISO 8601 dates with milliseconds in UTC, slashes
/// unescaped.
enum JSONOutput {
    /// Pretty-printed, for `info --json` and `sessions --json`.
    static func pretty<T: Encodable>(_ value: T) throws -> String {
        try encode(value, formatting: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// One line, for NDJSON.
    static func line<T: Encodable>(_ value: T) throws -> String {
        try encode(value, formatting: [.sortedKeys, .withoutEscapingSlashes])
    }

    private static func encode<T: Encodable>(_ value: T, formatting: JSONEncoder.OutputFormatting) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Format.timestamp(date))
        }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// One message in `messages --json` (NDJSON): every field of ``LogStore/Message`` with the
/// level by name and the session as `session`. Absent values are `null`, never missing keys, so
/// every line has the same shape.
struct MessageRecord: Encodable {
    var message: LogStore.Message

    private enum Keys: String, CodingKey {
        case id, time, level, label, text, metadata, file, function, line, threadID, threadName, session
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(message.id, forKey: .id)
        try container.encode(message.createdAt, forKey: .time)
        try container.encode(message.level.name, forKey: .level)
        try container.encode(message.label, forKey: .label)
        try container.encode(message.text, forKey: .text)
        try container.encode(message.metadata, forKey: .metadata)
        try container.encode(message.file, forKey: .file)
        try container.encode(message.function, forKey: .function)
        try container.encode(message.line, forKey: .line)
        try container.encode(message.threadID, forKey: .threadID)
        try container.encode(message.threadName, forKey: .threadName)
        try container.encode(message.sessionID, forKey: .session)
    }
}
