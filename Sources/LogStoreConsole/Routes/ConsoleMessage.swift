import Foundation
import LogStore

/// A message as the API sends it: times as seconds since 1970 (the page formats them in the
/// viewer's zone), the level by name, and the matches of a text search as UTF-16 offsets (what
/// a script's strings count). ``JSONText`` writes it on the hot paths; `Encodable` is the
/// reference it is tested against.
struct ConsoleMessage: Encodable {
    var id: Int64
    var cursor: String
    var time: Double
    var level: String
    var label: String
    var text: String
    var metadata: LogStore.Metadata?
    var file: String?
    var function: String?
    var line: Int?
    var thread: Int32?
    var threadName: String?
    var session: UUID
    /// `[start, end)` pairs in UTF-16 units of `text`.
    var matches: [[Int]]?

    init(_ message: LogStore.Message, matches: [Range<String.Index>]? = nil) {
        id = message.id
        cursor = MessageQuery.Cursor(lastID: message.id).description
        time = message.createdAt.timeIntervalSince1970
        level = message.level.name
        label = message.label
        text = message.text
        metadata = message.metadata.isEmpty ? nil : message.metadata
        file = message.file
        function = message.function
        line = message.line
        thread = message.threadID
        threadName = message.threadName
        session = message.sessionID
        self.matches = matches.map { ranges in
            ranges.map { range in
                [message.text.utf16.distance(from: message.text.startIndex, to: range.lowerBound),
                 message.text.utf16.distance(from: message.text.startIndex, to: range.upperBound)]
            }
        }
    }
}
