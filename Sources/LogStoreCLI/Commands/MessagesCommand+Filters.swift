import Foundation
import LogStore

/// The filters `messages` shares with `tail`, declared once here: `tail` lists ``filterOptions``
/// and reads them with ``filterQuery(_:now:timeZone:)``, so whatever filter `messages` gains,
/// `tail` has too.
extension MessagesCommand {
    static let level = ValueOption("level", "level", "Only this level and above (warning), or a range (info...error).")
    static let window = WindowFilters.Options(timed: "messages", labelHelp: "Only this label; repeat for several.")
    static let grep = ValueOption("grep", "text", "Only messages with these words (full-text search; matches are highlighted).")
    static let fts = ValueOption("fts", "query", "Only messages matching this FTS5 query (phrases, prefix*, AND, OR, NOT, NEAR).")
    static let meta = RepeatableOption(
        "meta", "key=value", "Only messages with this metadata value (or key, without =; \"a.b\" for a key with dots); repeat for several.")
    static let excludeLabel = RepeatableOption("exclude-label", "label", "Leave out this label; repeat for several.")
    static let file = RepeatableOption("file", "name", "Only messages logged in this source file (Server.swift); repeat for several.")
    static let function = RepeatableOption("function", "name", "Only messages logged in this function; repeat for several.")
    static let taskMessages = FlagOption(
        "task-messages", "Include the technical messages of network tasks (default: logged messages only).")

    /// The text, metadata, label, source and task-message filters, in the order `--help` lists
    /// them (after the window and paging options in `messages`).
    static var searchOptions: [any CommandOption] { [grep, fts, meta, excludeLabel, file, function, taskMessages] }

    /// Every filter, in the order `tail --help` lists them.
    static var filterOptions: [any CommandOption] { [level] + window.all + searchOptions }

    /// The filters of ``filterOptions`` as a ``MessageQuery``, in the order `messages` checks them.
    static func filterQuery(_ arguments: ParsedArguments, now: Date, timeZone: TimeZone) throws(UsageError) -> MessageQuery {
        let window = try WindowFilters(arguments, Self.window, now: now, timeZone: timeZone)
        var query = try searchFilters(arguments)
        query.labels = window.labels
        query.sessions = window.sessions
        query.since = window.since
        query.until = window.until
        try readLevel(arguments, into: &query)
        return query
    }

    /// The filters of ``searchOptions``, on an otherwise open query.
    static func searchFilters(_ arguments: ParsedArguments) throws(UsageError) -> MessageQuery {
        var query = MessageQuery(includesTaskMessages: arguments.flag(taskMessages))
        switch (arguments.value(grep), arguments.value(fts)) {
        case (let words?, nil): query.text = .plain(words)
        case (nil, let expression?): query.text = .fts5(expression)
        case (nil, nil): break
        case (_?, _?): throw UsageError(message: "--grep and --fts are two syntaxes of one search: give one of them")
        }
        query.metadata = try arguments.all(meta).map { (text) throws(UsageError) in try ValueParsers.metadataFilter(text) }
        query.excludedLabels = arguments.all(excludeLabel)
        query.files = arguments.all(file)
        query.functions = arguments.all(function)
        return query
    }

    static func readLevel(_ arguments: ParsedArguments, into query: inout MessageQuery) throws(UsageError) {
        if let text = arguments.value(Self.level) {
            query.levels = try ValueParsers.levels(text)
        }
    }

    /// `text` as the cursor of a message (`m1234`), for `--after-cursor`: a rank cursor (`r20`)
    /// says where a page of matches ends, not a point in the log.
    static func messageCursor(_ text: String, option: ValueOption) throws(UsageError) -> MessageQuery.Cursor {
        let cursor: MessageQuery.Cursor = try ValueParsers.cursor(text, option: option.name, example: "m1234")
        guard cursor.rankOffset == nil else {
            throw UsageError(message: "invalid value '\(text)' for --\(option.name): expected a message cursor such as m1234")
        }
        return cursor
    }
}
