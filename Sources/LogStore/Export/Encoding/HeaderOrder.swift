/// The one order every format lists headers (and other string pairs) in: by name without case,
/// as HTTP compares names, then exactly, for a dictionary holding one name in two spellings.
/// A dictionary has no order, and a golden file or a diff of two exports needs one.
enum HeaderOrder {
    static func sorted(_ pairs: [String: String]) -> [(name: String, value: String)] {
        // Each name lowered once, not once per comparison.
        pairs.map { (folded: $0.key.lowercased(), name: $0.key, value: $0.value) }
            .sorted { $0.folded != $1.folded ? $0.folded < $1.folded : $0.name < $1.name }
            .map { (name: $0.name, value: $0.value) }
    }
}
