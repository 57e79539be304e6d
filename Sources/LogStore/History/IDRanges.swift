/// A set of row ids as ascending, disjoint, non-adjacent closed ranges: what one transaction
/// inserted, updated or deleted of one entity. The writer inserts in id order and the sweep
/// deletes runs of ids, so a batch of thousands of rows is usually one range.
public struct IDRanges: Sendable, Hashable, Sequence {
    /// The ranges, ascending; no two touch.
    public private(set) var ranges: [ClosedRange<Int64>] = []
    /// How many ids the ranges hold.
    public private(set) var count = 0

    /// No ids.
    public init() {}

    /// The given ids, in any order, repeats ignored.
    public init(_ ids: some Sequence<Int64>) {
        for id in ids.sorted() { insert(id) }
    }

    /// Whether there are no ids.
    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether `id` is one of them.
    public func contains(_ id: Int64) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < id { low = middle + 1 } else { high = middle }
        }
        return low < ranges.count && ranges[low].contains(id)
    }

    /// Adds `id`: O(1) when it extends the last range (the writer's case), else a search.
    public mutating func insert(_ id: Int64) {
        insert(id ... id)
    }

    /// Adds every id of `range`.
    public mutating func insert(_ range: ClosedRange<Int64>) {
        if let last = ranges.last, range.lowerBound > last.upperBound {
            if range.lowerBound == last.upperBound + 1 {
                ranges[ranges.count - 1] = last.lowerBound ... range.upperBound
            } else {
                ranges.append(range)
            }
            count += range.count
            return
        }
        // Out of order: merge with every range it touches.
        var merged = range
        var kept: [ClosedRange<Int64>] = []
        kept.reserveCapacity(ranges.count + 1)
        var placed = false
        for existing in ranges {
            if existing.upperBound + 1 < merged.lowerBound {
                kept.append(existing)
            } else if merged.upperBound + 1 < existing.lowerBound {
                if !placed { kept.append(merged); placed = true }
                kept.append(existing)
            } else {
                merged = Swift.min(existing.lowerBound, merged.lowerBound) ... Swift.max(existing.upperBound, merged.upperBound)
            }
        }
        if !placed { kept.append(merged) }
        ranges = kept
        count = ranges.reduce(0) { $0 + $1.count }
    }

    /// How many ids are in both `self` and `other`: a walk of both lists of ranges, never of
    /// the ids themselves, so two ranges of millions of ids are one comparison.
    public func intersectionCount(_ other: IDRanges) -> Int {
        var count = 0
        var mine = 0
        var theirs = 0
        while mine < ranges.count && theirs < other.ranges.count {
            let a = ranges[mine]
            let b = other.ranges[theirs]
            let low = Swift.max(a.lowerBound, b.lowerBound)
            let high = Swift.min(a.upperBound, b.upperBound)
            if low <= high { count += Int(high - low) + 1 }
            // The range that ends first can meet nothing further on.
            if a.upperBound < b.upperBound { mine += 1 } else { theirs += 1 }
        }
        return count
    }

    /// The ids, ascending.
    public func makeIterator() -> some IteratorProtocol<Int64> {
        ranges.lazy.flatMap { $0 }.makeIterator()
    }
}

extension IDRanges {
    /// The union of `ranges`, given in any order: one sort and one pass, where inserting them
    /// one by one out of order would cost a pass each.
    init(unionOf ranges: [ClosedRange<Int64>]) {
        self.init()
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = self.ranges.last, range.lowerBound <= last.upperBound + 1 {
                guard range.upperBound > last.upperBound else { continue }
                self.ranges[self.ranges.count - 1] = last.lowerBound ... range.upperBound
                count += Int(range.upperBound - last.upperBound)
            } else {
                self.ranges.append(range)
                count += range.count
            }
        }
    }

    /// The stored form (`history.ids`): per range, the gap from the previous range's end (from 0
    /// for the first) and its length minus one, each an unsigned LEB128 varint. A range of
    /// 4,096 inserted messages takes 4–6 bytes.
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(ranges.count * 4)
        var previousEnd: Int64 = -1
        for range in ranges {
            Self.appendVarint(UInt64(bitPattern: range.lowerBound &- previousEnd &- 1), to: &bytes)
            Self.appendVarint(UInt64(bitPattern: range.upperBound &- range.lowerBound), to: &bytes)
            previousEnd = range.upperBound
        }
        return bytes
    }

    /// Decodes ``encoded``; nil for bytes it could not have written (truncated, overlong,
    /// overflowing), which a damaged or hand-edited row may hold.
    init?(encoded bytes: some Collection<UInt8>) {
        var index = bytes.startIndex
        var previousEnd: Int64 = -1
        self.init()
        while index != bytes.endIndex {
            // Row ids stay far below 2^48; anything beyond is not a row id this store wrote.
            guard let gap = Self.readVarint(bytes, &index), let length = Self.readVarint(bytes, &index),
                gap < Self.idLimit, length < Self.idLimit
            else { return nil }
            let start = previousEnd + Int64(gap) + 1
            let end = start + Int64(length)
            guard end < Int64(Self.idLimit) else { return nil }
            ranges.append(start ... end)
            count += Int(length) + 1
            previousEnd = end
        }
    }

    private static let idLimit: UInt64 = 1 << 48

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private static func readVarint<C: Collection<UInt8>>(_ bytes: C, _ index: inout C.Index) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while index != bytes.endIndex {
            let byte = bytes[index]
            bytes.formIndex(after: &index)
            guard shift < 64, shift < 63 || byte <= 1 else { return nil }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}
