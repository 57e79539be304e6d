import CLZ4
@testable import ClickHouseCluster
import Foundation
@testable import LogStore
import Testing

/// ClickHouse's compressed-block format for request bodies: CityHash 1.0.2's 128-bit hash, the
/// blocks' layout, and a real server (Debian's clickhouse-server 18.16) that reads what the
/// encoder writes, rejects a wrong checksum, and writes the same checksums itself.
@Suite("ClickHouse compressed bodies")
struct ClickHouseCompressionTests {
    /// The bytes the known values hash: a fixed pattern, so any length can be named.
    static func sample(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ ($0 >> 8) &+ 13) }
    }

    /// Lengths through every path of the algorithm (0, 1–3, 4–7, 8–15 bytes; the seed's 16 and
    /// murmur's up to 143; the long loop's 128-byte turns with 0 to 127 bytes left). The values
    /// came from another implementation of CityHash 1.0.2 (Google's C++, through the
    /// clickhouse-cityhash Python bindings), run once by hand; the server tests below check the
    /// same function against ClickHouse itself.
    static let knownValues: [(Int, CityHash128)] = [
        (0, CityHash128(low: 0x3df0_9dfc_64c0_9a2b, high: 0x3cb5_40c3_92e5_1e29)),
        (1, CityHash128(low: 0xe5be_f1ac_1b4e_ece8, high: 0xf996_4837_8186_fd8b)),
        (3, CityHash128(low: 0xdd83_6c56_4beb_6276, high: 0x00b5_4d89_5866_a8d7)),
        (4, CityHash128(low: 0xe372_c48a_c721_e984, high: 0xe9aa_abfe_3868_5643)),
        (7, CityHash128(low: 0x3aea_ab87_3852_8d5b, high: 0x0291_0094_eb02_92a0)),
        (8, CityHash128(low: 0xa8ed_8a59_5c53_7153, high: 0xf76a_51e4_a96c_e490)),
        (11, CityHash128(low: 0x6747_4a27_ccc4_50c9, high: 0x1e38_b495_1e0d_602c)),
        (15, CityHash128(low: 0xb0e9_747f_6830_392f, high: 0xa96e_5ad7_8ee8_051f)),
        (16, CityHash128(low: 0x419b_4b2b_eac8_bae4, high: 0xe3d0_bd3a_e1d3_d49b)),
        (17, CityHash128(low: 0xfb0b_1cf1_cb53_5902, high: 0xf48a_09ac_1e3b_d6b6)),
        (24, CityHash128(low: 0xa08d_ae3a_80aa_e664, high: 0x042e_b039_20e2_3f7f)),
        (32, CityHash128(low: 0x1cff_c835_436e_84b9, high: 0x7717_f07b_b750_7f96)),
        (33, CityHash128(low: 0xa1a1_59aa_a9cd_af51, high: 0x8ef9_8fca_5278_2837)),
        (100, CityHash128(low: 0x713f_24ac_f5f8_c3d8, high: 0x6544_c640_52d8_dff0)),
        (143, CityHash128(low: 0x8d2d_31cc_077c_463e, high: 0x0f72_74cf_c6e9_a13a)),
        (144, CityHash128(low: 0xceb5_d269_ad37_efcd, high: 0xfa17_318f_a578_5258)),
        (145, CityHash128(low: 0xe4d3_be1b_6a15_751c, high: 0x7085_88f7_b249_772d)),
        (160, CityHash128(low: 0x3dd4_91b9_baca_7ce1, high: 0x53f5_73b9_06f1_6c1e)),
        (200, CityHash128(low: 0x8abc_6c3b_da54_a646, high: 0x6fe5_55a5_a7e4_3fdf)),
        (271, CityHash128(low: 0x82f0_c6ce_e777_f6f6, high: 0xbbf6_f594_3b1e_357c)),
        (272, CityHash128(low: 0x55ac_6007_6aba_b264, high: 0x7237_7681_a4b6_c4cf)),
        (273, CityHash128(low: 0x7d4d_6c1b_49da_dadb, high: 0x5e96_9298_709f_5f22)),
        (1000, CityHash128(low: 0x4b7d_5229_68d6_2c87, high: 0xb58b_99d6_7cee_11e6)),
        (65541, CityHash128(low: 0x5471_994a_55ba_5e57, high: 0xd7d8_8f0c_0bf7_8caa)),
    ]

    @Test func cityHash128MatchesVersion102() {
        for (count, expected) in Self.knownValues {
            #expect(CityHash128(Self.sample(count)) == expected, "\(count) bytes")
        }
        #expect(CityHash128(Array("ClickHouse".utf8)) == CityHash128(low: 0x3704_cc81_c00b_b612, high: 0x76d4_3ac4_baf9_1402))
        #expect(
            CityHash128(Array("The quick brown fox jumps over the lazy dog".utf8))
                == CityHash128(low: 0x6910_2202_d326_a2fd, high: 0xe4b1_346b_bee5_31a1))
        // A slice of a larger buffer hashes as the same bytes on their own: nothing is read
        // outside the bytes given.
        let padded = [0xff] + Self.sample(145) + [0xff]
        let inner = padded.withUnsafeBytes { CityHash128(UnsafeRawBufferPointer(rebasing: $0[1..<146])) }
        #expect(inner == Self.knownValues.first { $0.0 == 145 }?.1)
    }

    @Test func blocksHoldAtMostTheBlockSizeEachChecksummedAndDecompressible() throws {
        let input = Self.logRows(count: 40_000)
        #expect(input.count > 2 * ClickHouseCompressedBody.maxBlockSize)
        let body = try ClickHouseCompressedBody.encode(input)
        let blocks = try Self.blocks(of: body)
        #expect(blocks.count == (input.count + ClickHouseCompressedBody.maxBlockSize - 1) / ClickHouseCompressedBody.maxBlockSize)
        #expect(blocks.dropLast().allSatisfy { $0.uncompressedSize == ClickHouseCompressedBody.maxBlockSize })
        #expect(blocks.allSatisfy { $0.method == 0x82 && $0.checksumMatches })
        #expect(blocks.flatMap(\.decompressed) == input)
        #expect(body.count < input.count / 3, "log rows compress: \(body.count) of \(input.count)")

        #expect(try ClickHouseCompressedBody.encode([]) == [])
        let tiny = try Self.blocks(of: ClickHouseCompressedBody.encode([7], blockSize: 1))
        #expect(tiny.count == 1 && tiny[0].decompressed == [7] && tiny[0].checksumMatches)
        for size in [0, -1, ClickHouseCompressedBody.maxAcceptedBlockSize + 1] {
            #expect(throws: ClickHouseCompressionError.invalidBlockSize(size)) {
                try ClickHouseCompressedBody.encode([1, 2, 3], blockSize: size)
            }
        }
    }

    // MARK: A real server

    /// Rows of `default.t (n UInt64, s String)` in RowBinary, in `n`'s order: what
    /// `SELECT n, s FROM default.t ORDER BY n FORMAT RowBinary` answers once they are in.
    static func rowBinary(_ rows: [(UInt64, [UInt8])]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (n, s) in rows {
            withUnsafeBytes(of: n.littleEndian) { bytes.append(contentsOf: $0) }
            var length = s.count
            repeat {
                let low = UInt8(length & 0x7f)
                length >>= 7
                bytes.append(length == 0 ? low : low | 0x80)
            } while length > 0
            bytes.append(contentsOf: s)
        }
        return bytes
    }

    /// Log lines much like those the shipper sends: repetitive, so they compress about 4 to 1.
    static func logRows(count: Int) -> [UInt8] {
        rowBinary((0..<count).map { index in
            let line = "2024-05-01T12:\(index / 600 % 60):\(index / 10 % 60).\(index % 1000)Z info api "
                + "request id=\(index) user=u\(index % 97) GET /items/\(index % 1000) status=200 took \(index % 250)ms"
            return (UInt64(index), Array(line.utf8))
        })
    }

    static let insert = ["query": "INSERT INTO default.t FORMAT RowBinary", "decompress": "1"]

    static func withTable(_ body: (ClickHouseCluster) async throws -> Void) async throws {
        try await asHeavyTest {
            let cluster = try await ClickHouseCluster.start(replicas: 1)
            defer { cluster.stop() }
            _ = try await cluster.query("CREATE TABLE default.t (n UInt64, s String) ENGINE = MergeTree ORDER BY n")
            try await body(cluster)
        }
    }

    /// Empties the table, sends `rows` compressed in blocks of `blockSize`, and expects to read
    /// the same rows back byte for byte.
    static func expectRoundTrip(
        _ rows: [UInt8], blockSize: Int = ClickHouseCompressedBody.maxBlockSize, in cluster: ClickHouseCluster,
        _ comment: Comment
    ) async throws {
        _ = try await cluster.query("TRUNCATE TABLE default.t")
        let body = try ClickHouseCompressedBody.encode(rows, blockSize: blockSize)
        _ = try await cluster.post(Data(body), parameters: insert)
        let back = try await cluster.post(Data("SELECT n, s FROM default.t ORDER BY n FORMAT RowBinary".utf8))
        #expect(back.count == rows.count, comment)
        #expect(Array(back) == rows, comment)
    }

    @Test(.enabled(if: ClickHouseCluster.isInstalled(replicas: 1), "skipped: needs clickhouse-server (apt-get install clickhouse-server)"))
    func theServerReadsWhatTheEncoderWrites() async throws {
        try await Self.withTable { cluster in
            try await Self.expectRoundTrip([], in: cluster, "no rows: an empty body")
            try await Self.expectRoundTrip(Self.rowBinary([(1, Array("one".utf8))]), in: cluster, "one row: one small block")
            let rows = Self.logRows(count: 40_000)
            try await Self.expectRoundTrip(rows, in: cluster, "\(rows.count) bytes in 1 MiB blocks")

            // Random bytes do not compress: LZ4's payload is larger than the block's input.
            var generator = SystemRandomNumberGenerator()
            let random = Self.rowBinary((0..<3).map { index in
                (UInt64(index), (0..<(1_200_000 + index)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            })
            let blocks = try Self.blocks(of: ClickHouseCompressedBody.encode(random))
            #expect(blocks.count == 4 && blocks.allSatisfy { $0.payloadSize > $0.uncompressedSize })
            try await Self.expectRoundTrip(random, in: cluster, "incompressible strings")

            // Small blocks put every path of CityHash under the server's check: the hashed
            // header and payload are 11 to 15 bytes long with blocks of 1 to 5, 16 to 143 with
            // blocks up to about 100, longer ones with 300 and 4096.
            let some = Self.logRows(count: 60)
            for blockSize in [1, 3, 5, 8, 16, 40, 100, 129, 300, 4096] {
                try await Self.expectRoundTrip(some, blockSize: blockSize, in: cluster, "blocks of \(blockSize)")
            }
        }
    }

    @Test(.enabled(if: ClickHouseCluster.isInstalled(replicas: 1), "skipped: needs clickhouse-server (apt-get install clickhouse-server)"))
    func theServerRejectsAWrongChecksum() async throws {
        try await Self.withTable { cluster in
            let body = try ClickHouseCompressedBody.encode(Self.logRows(count: 100))
            var flipped = body
            flipped[3] ^= 0x10
            // The two halves in the other order: the low one comes first.
            let swapped = Array(body[8..<16] + body[0..<8] + body[16...])
            var payload = body
            payload[payload.count - 1] ^= 0x01
            for (broken, what) in [(flipped, "a flipped bit in the checksum"), (swapped, "the halves swapped"),
                                   (payload, "a flipped bit in the payload")] {
                let error = await #expect(throws: ClickHouseClusterError.self, "\(what)") {
                    try await cluster.post(Data(broken), parameters: Self.insert)
                }
                // Code 40, CHECKSUM_DOESNT_MATCH; the answer's status is 500, as for a server fault.
                #expect(error?.body?.contains("Code: 40") == true, "\(what): \(String(describing: error))")
                #expect(error?.body?.contains("Checksum doesn't match") == true, "\(what): \(String(describing: error))")
                #expect(error?.status == 500, "\(what): \(String(describing: error))")
            }
            #expect(try await cluster.query("SELECT count() FROM default.t") == "0\n")
            _ = try await cluster.post(Data(body), parameters: Self.insert)
            #expect(try await cluster.query("SELECT count() FROM default.t") == "100\n")
        }
    }

    /// The other direction: with `compress=1` the server writes its answer in the same format,
    /// and its checksums are those of ``CityHash128``, in the same order.
    @Test(.enabled(if: ClickHouseCluster.isInstalled(replicas: 1), "skipped: needs clickhouse-server (apt-get install clickhouse-server)"))
    func theServersOwnBlocksCarryTheSameChecksums() async throws {
        try await asHeavyTest {
            let cluster = try await ClickHouseCluster.start(replicas: 1)
            defer { cluster.stop() }
            let answer = try await cluster.post(
                Data("SELECT number, toString(number) FROM system.numbers LIMIT 300000 FORMAT RowBinary".utf8),
                parameters: ["compress": "1"])
            let blocks = try Self.blocks(of: Array(answer))
            #expect(blocks.count > 1)
            #expect(blocks.allSatisfy { $0.method == ClickHouseCompressedBody.lz4Method && $0.checksumMatches })
            let plain = try await cluster.post(
                Data("SELECT number, toString(number) FROM system.numbers LIMIT 300000 FORMAT RowBinary".utf8))
            #expect(blocks.flatMap(\.decompressed) == Array(plain))
        }
    }

    // MARK: Reading blocks back

    struct Block {
        var method: UInt8
        var payloadSize: Int
        var uncompressedSize: Int
        var checksumMatches: Bool
        var decompressed: [UInt8]
    }

    struct MalformedBody: Error, CustomStringConvertible {
        var description: String
    }

    /// Splits `body` into its blocks and checks each one's checksum (written low half first)
    /// and decompresses its payload.
    static func blocks(of body: [UInt8]) throws -> [Block] {
        func uint32(_ offset: Int) -> Int {
            (0..<4).reduce(0) { $0 | Int(body[offset + $1]) << (8 * $1) }
        }
        func uint64(_ offset: Int) -> UInt64 {
            (0..<8).reduce(0) { $0 | UInt64(body[offset + $1]) << (8 * UInt64($1)) }
        }
        var blocks: [Block] = []
        var offset = 0
        while offset < body.count {
            guard body.count - offset >= 25 else { throw MalformedBody(description: "a cut header at \(offset)") }
            let header = offset + 16
            let size = uint32(header + 1)
            let uncompressed = uint32(header + 5)
            guard size >= 9, header + size <= body.count else { throw MalformedBody(description: "a cut block at \(offset)") }
            let checksum = CityHash128(Array(body[header..<(header + size)]))
            var decompressed = [UInt8](repeating: 0, count: uncompressed)
            let payload = Array(body[(header + 9)..<(header + size)])
            let produced = payload.withUnsafeBytes { source in
                decompressed.withUnsafeMutableBytes { destination in
                    LZ4_decompress_safe(
                        source.baseAddress?.assumingMemoryBound(to: CChar.self),
                        destination.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(payload.count), Int32(uncompressed))
                }
            }
            guard produced == uncompressed else {
                throw MalformedBody(description: "the block at \(offset) decompressed to \(produced) bytes, not \(uncompressed)")
            }
            blocks.append(Block(
                method: body[header], payloadSize: size - 9, uncompressedSize: uncompressed,
                checksumMatches: uint64(offset) == checksum.low && uint64(offset + 8) == checksum.high,
                decompressed: decompressed))
            offset = header + size
        }
        return blocks
    }
}
