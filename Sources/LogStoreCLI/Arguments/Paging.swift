/// The paging `messages` and `tasks` share: the page size, the order and the cursor of an
/// earlier page.
struct Paging {
    var limit: Int
    var isOldestFirst = false
    /// The `--cursor` as given: each command parses its own kind of cursor.
    var cursorText: String?

    /// Keeps `limit + 1` (asked for to learn whether another page exists) from overflowing.
    static let maximumLimit = 10_000_000

    /// The options of one command, declared once: its spec lists ``all``, and ``init(_:_:)``
    /// reads the same constants.
    struct Options: Sendable {
        let limit: ValueOption
        let oldestFirst: FlagOption
        let cursor = ValueOption("cursor", "cursor", "Continue after an earlier page (its last line prints the cursor).")
        /// The page size without `--limit`.
        let defaultLimit: Int

        /// - Parameter items: what is listed ("messages", "tasks").
        init(items: String, defaultLimit: Int) {
            limit = ValueOption("limit", "n", "The most \(items) to print (default \(defaultLimit)).")
            oldestFirst = FlagOption("oldest-first", "Print the oldest \(items) first (default: newest first).")
            self.defaultLimit = defaultLimit
        }

        /// The options, in the order `--help` lists them.
        var all: [any CommandOption] { [limit, oldestFirst, cursor] }
    }

    /// The cursor is kept as text: ``cursor(_:example:)`` parses it as the command's kind.
    init(_ arguments: ParsedArguments, _ options: Options) throws(UsageError) {
        limit = options.defaultLimit
        if let limit = arguments.value(options.limit) {
            self.limit = try ValueParsers.integer(limit, option: options.limit.name, in: 1...Self.maximumLimit)
        }
        isOldestFirst = arguments.flag(options.oldestFirst)
        cursorText = arguments.value(options.cursor)
    }

    /// The `--cursor` as a cursor of type `C` (`MessageQuery.Cursor`, `TaskQuery.Cursor`), whose
    /// text form looks like `example`.
    func cursor<C: LosslessStringConvertible>(_: C.Type, example: String) throws(UsageError) -> C? {
        guard let cursorText else { return nil }
        return try ValueParsers.cursor(cursorText, option: "cursor", example: example)
    }
}
