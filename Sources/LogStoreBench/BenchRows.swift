import CBenchBaseline
import LogStore

/// The benchmark's generated rows: the same generator as the C baseline (`baseline.c` states
/// it), so both sides store the same data. Rows are made on the fly: a million pre-built
/// messages alone would take ~200 MB.
struct BenchRow {
    let label: String
    let level: LogStore.Level
    let text: String
    let metadata: LogStore.Metadata?
    let createdAtSeconds: Double

    static let labels = [
        "http", "db", "auth", "cache", "queue", "scheduler", "mailer", "payments", "search", "storage",
        "metrics", "config", "session", "api.v1", "api.v2", "worker", "cron", "billing", "notifications", "gateway",
    ]

    init(_ i: UInt64) {
        let r = Self.splitmix64(i)
        label = Self.labels[Int(r % 20)]
        level = LogStore.Level(rawValue: Int16((r >> 8) % 7)) ?? .info
        // Formatted into bytes by hand: string interpolation costs the producers ~0.8 µs a row,
        // CPU the writer then lacks, and the C side formats with one snprintf.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        bytes.append(contentsOf: "Handled request ".utf8)
        Self.appendDecimal(i, to: &bytes)
        bytes.append(contentsOf: " for user ".utf8)
        Self.appendDecimal((r >> 16) % 100000, to: &bytes)
        bytes.append(contentsOf: " in ".utf8)
        Self.appendDecimal((r >> 24) % 2000, to: &bytes)
        bytes.append(contentsOf: " ms: status=".utf8)
        Self.appendDecimal(200 + (r >> 32) % 5 * 100, to: &bytes)
        bytes.append(contentsOf: ", cache=miss, upstream=api-".utf8)
        let upstream = (r >> 40) % 32
        if upstream < 10 { bytes.append(UInt8(ascii: "0")) }
        Self.appendDecimal(upstream, to: &bytes)
        bytes.append(contentsOf: ".internal, bytes=".utf8)
        Self.appendDecimal((r >> 44) % 1000000, to: &bytes)
        text = String(decoding: bytes, as: UTF8.self)
        if (r >> 60) & 1 == 1 {
            var hex: [UInt8] = []
            hex.reserveCapacity(16)
            for shift in stride(from: 60, through: 0, by: -4) {
                hex.append(Self.hexDigits[Int((r >> UInt64(shift)) & 0xF)])
            }
            var user: [UInt8] = []
            Self.appendDecimal((r >> 16) % 100000, to: &user)
            metadata = [
                "request_id": .string(String(decoding: hex, as: UTF8.self)),
                "user": .string(String(decoding: user, as: UTF8.self)),
            ]
        } else {
            metadata = nil
        }
        createdAtSeconds = 1_790_000_000.0 + Double(i) * 0.001
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
        if value >= 10 { appendDecimal(value / 10, to: &bytes) }
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    static func splitmix64(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Checks the Swift generator against the C one on a few rows; a mismatch would make the
    /// comparison meaningless.
    static func verifyAgainstBaseline() -> Bool {
        for i: UInt64 in [0, 1, 2, 7, 99, 12_345, 999_999] + (0..<2000).map({ UInt64($0) * 7919 }) {
            let row = BenchRow(i)
            var buffer = [CChar](repeating: 0, count: 256)
            lsb_row_text(i, &buffer, Int32(buffer.count))
            let cText = Self.string(buffer)
            let cLabel = String(cString: lsb_label(i))
            let cLevel = Int16(lsb_row_level(i))
            var metadataBuffer = [CChar](repeating: 0, count: 128)
            let hasMetadata = lsb_row_metadata(i, &metadataBuffer, Int32(metadataBuffer.count)) == 1
            let cMetadata = Self.string(metadataBuffer)
            let swiftMetadata = row.metadata.map { metadata in
                "{\"request_id\":\"\(metadata["request_id"]?.description ?? "")\",\"user\":\"\(metadata["user"]?.description ?? "")\"}"
            }
            guard row.text == cText, row.label == cLabel, row.level.rawValue == cLevel,
                (hasMetadata ? cMetadata : nil) == swiftMetadata
            else { return false }
        }
        return true
    }
}
