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
        let upstream = (r >> 40) % 32
        text = "Handled request \(i) for user \((r >> 16) % 100000) in \((r >> 24) % 2000) ms: "
            + "status=\(200 + (r >> 32) % 5 * 100), cache=miss, upstream=api-\(upstream < 10 ? "0" : "")\(upstream).internal, "
            + "bytes=\((r >> 44) % 1000000)"
        if (r >> 60) & 1 == 1 {
            let hex = String(r, radix: 16)
            metadata = [
                "request_id": .string(String(repeating: "0", count: 16 - hex.count) + hex),
                "user": .string(String((r >> 16) % 100000)),
            ]
        } else {
            metadata = nil
        }
        createdAtSeconds = 1_790_000_000.0 + Double(i) * 0.001
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
        for i: UInt64 in [0, 1, 2, 7, 99, 12_345, 999_999] {
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
