import Foundation
import Testing

@testable import LogStore

@Suite("zlib")
struct ZlibTests {

    // MARK: Round trips

    @Test func roundTripEmpty() throws {
        let compressed = try ZlibCompressor().compress([UInt8]())
        #expect(!compressed.isEmpty)  // header and Adler-32 trailer even for no data
        #expect(try ZlibDecompressor().decompress(compressed, maxOutputSize: 0) == [])
    }

    @Test func roundTripSmall() throws {
        let body = Array(#"{"status":200,"path":"/v1/items","ms":12}"#.utf8)
        let compressed = try ZlibCompressor().compress(body)
        #expect(compressed.first == 0x78)  // zlib header (deflate, 32 KiB window)
        #expect(try ZlibDecompressor().decompress(compressed, maxOutputSize: 1 << 20) == body)
    }

    @Test func roundTripRandomMiB() throws {
        var generator = SeededRandom(seed: 42)
        let body = zlibTestRandomData(count: 1 << 20, using: &generator)
        let compressed = try ZlibCompressor().compress(body)
        #expect(compressed.count > body.count)  // incompressible: stored blocks plus framing
        #expect(compressed.count < body.count + body.count / 100)
        #expect(try ZlibDecompressor().decompress(compressed, maxOutputSize: 1 << 20) == body)
    }

    @Test func roundTripRepetitiveJSONMiB() throws {
        let body = zlibTestJSONLines(byteCount: 1 << 20)
        let compressed = try ZlibCompressor().compress(body)
        #expect(compressed.count * 3 < body.count)
        let restored = try ZlibDecompressor().decompress(
            compressed, maxOutputSize: body.count, expectedSize: body.count)
        #expect(restored == body)
    }

    @Test func dataAndPointerInputsAgree() throws {
        let body = zlibTestJSONLines(byteCount: 10_000)
        let compressor = try ZlibCompressor()
        let fromArray = try compressor.compress(body)
        let fromData = try compressor.compress(Data(body))
        let fromPointer = try body.withUnsafeBytes { raw throws(ZlibError) in try compressor.compress(raw) }
        #expect(fromArray == fromData)
        #expect(fromArray == fromPointer)
    }

    @Test func reusedStreamsStayIndependent() throws {
        let compressor = try ZlibCompressor()
        let decompressor = try ZlibDecompressor()
        var generator = SeededRandom(seed: 9)
        for round in 0..<50 {
            let size = Int(generator.next() % 9000)
            let body = round.isMultiple(of: 2) ? zlibTestJSONLines(byteCount: size) : zlibTestRandomData(count: size, using: &generator)
            let compressed = try compressor.compress(body)
            // Same body through a fresh compressor gives the same bytes: no state leaks between calls.
            #expect(compressed == (try ZlibCompressor().compress(body)))
            #expect(try decompressor.decompress(compressed, maxOutputSize: 1 << 20) == body)
        }
    }

    // MARK: Interoperability

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func pythonZlibReadsOurOutput() throws {
        let body = zlibTestJSONLines(byteCount: 200_000)
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("logstore-zlib-\(UUID().uuidString).z")
        try Data(try ZlibCompressor().compress(body)).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }

        let script = """
            import hashlib, sys, zlib
            raw = zlib.decompress(open(sys.argv[1], 'rb').read())
            print(len(raw), hashlib.sha1(raw).hexdigest())
            """
        let result = try runProcess("/usr/bin/python3", ["-c", script, url.path])
        #expect(result.status == 0, "\(result.standardError)")
        let fields = result.standardOutput.split(separator: " ")
        #expect(fields.count == 2)
        #expect(fields.first.map(String.init) == String(body.count))
        #expect(fields.last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } == SHA1.hash(body).hex)
    }

    // MARK: Levels

    @Test func levelsTradeSizeForSpeedAndAllRoundTrip() throws {
        let body = zlibTestJSONLines(byteCount: 256 << 10)
        let decompressor = try ZlibDecompressor()
        var sizes: [Int: Int] = [:]
        for level in [-1, 0, 1, 6, 9] {
            let compressor = try ZlibCompressor(level: level)
            #expect(compressor.level == level)
            let compressed = try compressor.compress(body)
            sizes[level] = compressed.count
            #expect(try decompressor.decompress(compressed, maxOutputSize: body.count) == body)
        }
        #expect(ZlibCompressor.defaultLevel == 1)
        #expect(try ZlibCompressor().compress(body).count == sizes[1])
        #expect(sizes[0, default: 0] > body.count)  // level 0 stores
        #expect(sizes[6, default: .max] < sizes[1, default: 0])
        #expect(sizes[9, default: .max] <= sizes[6, default: 0])
        #expect(sizes[-1] == sizes[6])  // -1 is zlib's default, 6
    }

    @Test(arguments: [-2, 10, 100])
    func invalidLevelIsRejected(level: Int) {
        let error = #expect(throws: ZlibError.self) { try ZlibCompressor(level: level) }
        guard case .streamError = error else {
            Issue.record("expected .streamError, got \(String(describing: error))")
            return
        }
    }

    // MARK: Streaming

    @Test func chunkedCompressionRoundTrips() throws {
        let body = zlibTestJSONLines(byteCount: 3 << 20)
        let compressor = try ZlibCompressor(outputChunkSize: 16 << 10)
        var chunks: [[UInt8]] = []
        var offset = 0
        var size = 1
        while offset < body.count {  // uneven chunk sizes, including tiny ones
            let end = min(body.count, offset + size)
            chunks.append(Array(body[offset..<end]))
            offset = end
            size = size * 3 % 200_003 + 1
        }
        var compressed: [UInt8] = []
        var largestPiece = 0
        let totals = try compressor.compress(chunks: chunks) { piece in
            largestPiece = max(largestPiece, piece.count)
            compressed.append(contentsOf: piece)
        }
        #expect(totals == ZlibStreamTotals(inputBytes: body.count, outputBytes: compressed.count))
        #expect(largestPiece <= 16 << 10)
        #expect(try ZlibDecompressor().decompress(compressed, maxOutputSize: body.count) == body)

        // Streamed decompression in odd-sized pieces.
        var restored: [UInt8] = []
        let pieces = stride(from: 0, to: compressed.count, by: 777).map {
            Array(compressed[$0..<min($0 + 777, compressed.count)])
        }
        let back = try ZlibDecompressor().decompress(chunks: pieces, maxOutputSize: body.count) {
            restored.append(contentsOf: $0)
        }
        #expect(back == ZlibStreamTotals(inputBytes: compressed.count, outputBytes: body.count))
        #expect(restored == body)
    }

    @Test func incrementalStreamAPI() throws {
        let compressor = try ZlibCompressor()
        var out: [UInt8] = []
        try compressor.beginStream()
        let parts = ["{\"a\":", "1,", "\"b\":[true,false]}"]
        for part in parts {
            try Array(part.utf8).withUnsafeBytes { try compressor.streamInput($0) { out.append(contentsOf: $0) } }
        }
        let totals = try compressor.finishStream { out.append(contentsOf: $0) }
        #expect(totals.inputBytes == parts.joined().utf8.count)
        #expect(totals.outputBytes == out.count)
        let restored = try ZlibDecompressor().decompress(out, maxOutputSize: 100)
        #expect(String(decoding: restored, as: UTF8.self) == #"{"a":1,"b":[true,false]}"#)
        // The compressor is usable for one-shot work afterwards.
        #expect(try ZlibDecompressor().decompress(try compressor.compress([1, 2, 3]), maxOutputSize: 3) == [1, 2, 3])
    }

    @Test func fileToFileStreamingWithHash() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("logstore-zlib-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = zlibTestJSONLines(byteCount: 2 << 20)
        let source = directory.appendingPathComponent("body.json")
        let packed = directory.appendingPathComponent("body.z")
        let unpacked = directory.appendingPathComponent("body.out")
        try Data(body).write(to: source)
        #expect(FileManager.default.createFile(atPath: packed.path, contents: nil))
        #expect(FileManager.default.createFile(atPath: unpacked.path, contents: nil))

        var hasher = SHA1()
        let input = try FileHandle(forReadingFrom: source)
        let output = try FileHandle(forWritingTo: packed)
        let totals = try ZlibCompressor().compress(contentsOf: input, chunkSize: 100_000, inspectInput: { hasher.update($0) }) {
            try output.write(contentsOf: $0)
        }
        try input.close()
        try output.close()
        #expect(totals.inputBytes == body.count)
        #expect(hasher.finalize() == SHA1.hash(body))
        #expect(try Data(contentsOf: packed).count == totals.outputBytes)

        let packedInput = try FileHandle(forReadingFrom: packed)
        let unpackedOutput = try FileHandle(forWritingTo: unpacked)
        let back = try ZlibDecompressor().decompress(contentsOf: packedInput, maxOutputSize: body.count) {
            try unpackedOutput.write(contentsOf: $0)
        }
        try packedInput.close()
        try unpackedOutput.close()
        #expect(back.outputBytes == body.count)
        #expect(try Data(contentsOf: unpacked) == Data(body))
    }

    // MARK: Hostile input

    @Test func decompressionBombStopsAtTheLimit() throws {
        // 100 MiB of zeros compresses to ~100 KB.
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var bomb: [UInt8] = []
        try ZlibCompressor(level: 9).compress(chunks: repeatElement(zeros, count: 100)) { bomb.append(contentsOf: $0) }
        #expect(bomb.count < 200_000)

        let limit = 1 << 20
        #expect(throws: ZlibError.outputLimitExceeded(limit: limit)) {
            try ZlibDecompressor().decompress(bomb, maxOutputSize: limit)
        }
        // Streaming: the sink never receives more than the limit.
        var delivered = 0
        #expect(throws: ZlibError.outputLimitExceeded(limit: limit)) {
            try ZlibDecompressor().decompress(chunks: [bomb], maxOutputSize: limit) { delivered += $0.count }
        }
        #expect(delivered <= limit)
    }

    @Test func limitIsExact() throws {
        let body = zlibTestJSONLines(byteCount: 100_000)
        let compressed = try ZlibCompressor().compress(body)
        let decompressor = try ZlibDecompressor()
        #expect(try decompressor.decompress(compressed, maxOutputSize: body.count) == body)
        #expect(throws: ZlibError.outputLimitExceeded(limit: body.count - 1)) {
            try decompressor.decompress(compressed, maxOutputSize: body.count - 1)
        }
        #expect(throws: ZlibError.outputLimitExceeded(limit: 0)) {
            try decompressor.decompress(compressed, maxOutputSize: 0)
        }
        // The decompressor recovers after a failure.
        #expect(try decompressor.decompress(compressed, maxOutputSize: body.count) == body)
    }

    @Test func truncatedInputIsReported() throws {
        let body = zlibTestJSONLines(byteCount: 50_000)
        let compressed = try ZlibCompressor().compress(body)
        let decompressor = try ZlibDecompressor()
        for keep in [0, 1, 2, 10, compressed.count / 2, compressed.count - 4, compressed.count - 1] {
            #expect(throws: ZlibError.truncatedData, "kept \(keep) bytes") {
                try decompressor.decompress(Array(compressed.prefix(keep)), maxOutputSize: 1 << 20)
            }
        }
        #expect(throws: ZlibError.truncatedData) {
            try decompressor.decompress(chunks: [Array(compressed.dropLast(3))], maxOutputSize: 1 << 20) { _ in }
        }
    }

    @Test func corruptInputIsReported() throws {
        let body = zlibTestJSONLines(byteCount: 50_000)
        let compressed = try ZlibCompressor().compress(body)
        var badChecksum = compressed
        badChecksum[badChecksum.count - 1] ^= 0xFF
        var gzipHeader = compressed
        gzipHeader[0] = 0x1F
        gzipHeader[1] = 0x8B
        var generator = SeededRandom(seed: 1234)
        let cases: [(String, [UInt8])] = [
            ("plain text", Array("this is not zlib data at all".utf8)),
            ("bad checksum", badChecksum),
            ("gzip header", gzipHeader),
            ("trailing bytes", compressed + [0x00]),
            ("random", [0x78, 0x9C] + zlibTestRandomData(count: 4096, using: &generator)),
        ]
        let decompressor = try ZlibDecompressor()
        for (name, input) in cases {
            let error = #expect(throws: ZlibError.self, "\(name)") {
                try decompressor.decompress(input, maxOutputSize: 1 << 20)
            }
            guard case .corruptData = error else {
                Issue.record("\(name): expected .corruptData, got \(String(describing: error))")
                continue
            }
        }
        #expect(try decompressor.decompress(compressed, maxOutputSize: 1 << 20) == body)
    }

    @Test func randomGarbageNeverCrashes() throws {
        var generator = SeededRandom(seed: 77)
        let decompressor = try ZlibDecompressor()
        for _ in 0..<500 {
            let size = Int(generator.next() % 300)
            var input = zlibTestRandomData(count: size, using: &generator)
            if size >= 2, generator.next() % 2 == 0 {
                input[0] = 0x78  // a valid header, so the deflate decoder sees the garbage
                input[1] = 0x9C
            }
            do {
                let output = try decompressor.decompress(input, maxOutputSize: 4096)
                #expect(output.count <= 4096)
            } catch {
                // A data error is the expected outcome; the point is no crash and no unbounded output.
                switch error {
                case .corruptData, .truncatedData, .outputLimitExceeded: break
                case .streamError: Issue.record("unexpected \(error) for \(input)")
                }
            }
        }
    }
}

// MARK: - Helpers (file-private: other test files may define their own)


private func zlibTestRandomData(count: Int, using generator: inout SeededRandom) -> [UInt8] {
    (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
}

/// Log-like JSON lines, deterministic, exactly `byteCount` bytes.
private func zlibTestJSONLines(byteCount: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(byteCount + 256)
    let paths = ["/v1/items", "/v1/users/me", "/health", "/v2/search?q=abc", "/v1/orders/12345"]
    let levels = ["debug", "info", "notice", "warning", "error"]
    var i = 0
    while out.count < byteCount {
        let line = #"{"ts":"2025-01-01T12:\#(10 + i % 50):\#(10 + i % 49).\#(100 + i % 900)Z","level":"\#(levels[i % 5])","#
            + #""label":"net.http","path":"\#(paths[i % 5])","status":\#(i % 7 == 0 ? 500 : 200),"#
            + #""ms":\#(i * 37 % 1000),"session":"s-\#(i / 100)","msg":"request finished"}"# + "\n"
        out.append(contentsOf: line.utf8)
        i += 1
    }
    return Array(out.prefix(byteCount))
}
