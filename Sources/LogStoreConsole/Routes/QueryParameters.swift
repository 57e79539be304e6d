/// The parameters of a request's query (`?level=warning&label=http&label=db`), decoded once.
struct QueryParameters: Sendable {
    /// Name and value pairs, in order (a name may repeat).
    let pairs: [(name: String, value: String)]

    /// Parses a raw query (without its `?`); nil is no parameters.
    /// - Throws: ``ConsoleRequestError/badRequest(_:)`` for a malformed escape or bytes that are not UTF-8.
    init(_ raw: String?) throws(ConsoleRequestError) {
        guard let raw, !raw.isEmpty else {
            pairs = []
            return
        }
        var pairs: [(name: String, value: String)] = []
        for part in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let halves = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentDecoding.decode(halves[0], plusIsSpace: true),
                let value = PercentDecoding.decode(halves.count > 1 ? halves[1] : "", plusIsSpace: true)
            else { throw .badRequest("the query is not percent-encoded UTF-8") }
            pairs.append((name, value))
        }
        self.pairs = pairs
    }

    /// The last value of `name` (a later parameter overrides an earlier one); nil when absent or empty.
    func value(_ name: String) -> String? {
        guard let value = pairs.last(where: { $0.name == name })?.value, !value.isEmpty else { return nil }
        return value
    }

    /// Every non-empty value of `name`, in order; a value with commas counts as several.
    func values(_ name: String) -> [String] {
        pairs.filter { $0.name == name }.flatMap { $0.value.split(separator: ",").map(String.init) }
    }
}
