import Foundation

/// The filters `messages`, `tasks` and `summary` share: labels, sessions and a time window.
struct WindowFilters {
    var labels: [String] = []
    var sessions: [UUID] = []
    var since: Date?
    var until: Date?

    /// The options of one command, declared once: its spec lists ``all``, and
    /// ``init(_:_:now:timeZone:)`` reads the same constants.
    struct Options: Sendable {
        let label: RepeatableOption
        let session = RepeatableOption("session", "id", "Only this session (see 'logstore sessions'); repeat for several.")
        let since: ValueOption
        let until: ValueOption

        /// - Parameters:
        ///   - timed: what the time window applies to ("messages", "tasks started").
        ///   - labelHelp: the help of `--label`.
        init(timed: String, labelHelp: String) {
            label = RepeatableOption("label", "label", labelHelp)
            since = ValueOption("since", "time", "Only \(timed) at or after this time.")
            until = ValueOption("until", "time", "Only \(timed) before this time.")
        }

        /// The options, in the order `--help` lists them.
        var all: [any CommandOption] { [label, session, since, until] }
    }

    init(_ arguments: ParsedArguments, _ options: Options, now: Date, timeZone: TimeZone) throws(UsageError) {
        labels = arguments.all(options.label)
        for session in arguments.all(options.session) {
            sessions.append(try ValueParsers.uuid(session, option: options.session.name))
        }
        if let since = arguments.value(options.since) {
            self.since = try ValueParsers.date(since, option: options.since.name, now: now, timeZone: timeZone)
        }
        if let until = arguments.value(options.until) {
            self.until = try ValueParsers.date(until, option: options.until.name, now: now, timeZone: timeZone)
        }
    }
}
