import LogStore

/// A small seeded generator (SplitMix64) plus the picks the demo data needs, so a seed always
/// gives the same store.
struct DemoRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A number in `range`.
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    /// A number in `range`.
    mutating func double(_ range: Range<Double>) -> Double {
        Double.random(in: range, using: &self)
    }

    /// `true` with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool {
        double(0..<1) < probability
    }

    /// One element of a non-empty array.
    mutating func pick<T>(_ elements: [T]) -> T {
        elements[int(0...(elements.count - 1))]
    }

    /// An index chosen with the given weights (non-empty, positive total).
    mutating func weightedIndex(_ weights: [Int]) -> Int {
        var roll = int(0...(weights.reduce(0, +) - 1))
        for (index, weight) in weights.enumerated() {
            if roll < weight { return index }
            roll -= weight
        }
        return weights.count - 1
    }

    /// `count` lowercase hex digits.
    mutating func hex(_ count: Int) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<count).map { _ in digits[int(0...15)] })
    }

    /// A duration in milliseconds around `typical`, with a long tail, one decimal.
    mutating func milliseconds(typical: Double) -> Double {
        let spread = double(0.3..<1.7)
        let tail = chance(0.05) ? double(2..<8) : 1
        return (typical * spread * tail * 10).rounded() / 10
    }

    // MARK: Realistic values

    mutating func requestID() -> String { "req_" + hex(12) }
    mutating func userID() -> String { "u_\(int(1000...99_999))" }
    mutating func orderID() -> String { "ord_\(int(100_000...999_999))" }
    mutating func traceID() -> String { hex(32) }

    mutating func ipAddress() -> String {
        if chance(0.15) { return "2001:db8:\(hex(4)):\(hex(4))::\(hex(2))" }
        return pick(["10.0", "172.16", "192.168", "203.0"]) + ".\(int(0...255)).\(int(1...254))"
    }

    mutating func email() -> String {
        pick(["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "oscar"])
            + "\(int(1...99))@" + pick(["example.com", "example.org", "mail.example.net"])
    }

    mutating func userAgent() -> String {
        pick([
            "Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0", "Mozilla/5.0 (Macintosh) Safari/605.1.15",
            "curl/8.5.0", "okhttp/4.12.0", "MyApp-iOS/3.14.2 (iPhone15,2; iOS 17.5)", "Go-http-client/2.0",
            "python-requests/2.32.3", "kube-probe/1.29",
        ])
    }
}

extension DemoRandom {
    /// `count` characters of the URL-safe base64 alphabet, as tokens are spelled.
    mutating func base64URL(_ count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        return String((0..<count).map { _ in alphabet[Int(next() & 63)] })
    }
}
