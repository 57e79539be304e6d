/// What an export's rows name by id (labels, sessions, threads), spelled once per id as the
/// format writes it: a row then costs a copy of bytes, not a lookup, an escape and a `String`.
/// Bounded by the tables it spells, which ``MessageReader`` reads whole anyway.
struct ExportSpellings<Key: Hashable> {
    private var spelled: [Key: [UInt8]] = [:]
    private var lastKey: Key?
    private var last: [UInt8] = []

    /// Appends the spelling of `key`, made by `spell` the first time it is asked for.
    mutating func append(_ key: Key, to output: inout [UInt8], spell: (Key, inout [UInt8]) -> Void) {
        // Rows of one session, thread or label often follow each other: the last one is kept at hand.
        if key != lastKey {
            if let known = spelled[key] {
                last = known
            } else {
                var bytes: [UInt8] = []
                spell(key, &bytes)
                spelled[key] = bytes
                last = bytes
            }
            lastKey = key
        }
        output.append(contentsOf: last)
    }
}

/// A thread of a session, as the `threads` table keys a name.
struct ExportThreadKey: Hashable {
    let session: Int64
    let thread: Int64
}
