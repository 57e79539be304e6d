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
        try Self.checkRange(since: since, until: until, arguments: arguments, options.since, options.until)
    }

    /// Refuses a window that holds no time (`--since 1h --until 2h`: the start after the end),
    /// which would otherwise answer "nothing matches" as if the store had nothing there.
    static func checkRange(
        since: Date?, until: Date?, arguments: ParsedArguments, _ sinceOption: ValueOption, _ untilOption: ValueOption
    ) throws(UsageError) {
        guard let since, let until, since >= until else { return }
        let given = { (option: ValueOption) in arguments.value(option).map { "--\(option.name) \($0)" } ?? "--\(option.name)" }
        throw UsageError(
            message: "empty time range: \(given(sinceOption)) is not before \(given(untilOption)) "
                + "(--since is where the range starts, the older time; --until where it ends)")
    }
}
