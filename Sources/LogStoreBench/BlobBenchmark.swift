import CBenchBaseline
import Foundation
@_spi(Benchmark) import LogStore

/// `blob.store_mb_per_s` and `blob.dedup_store_ns`: network bodies through the public API
/// (`storeRequest`, then `flush()`), each phase on its own new store.
///
/// - `blob.store_mb_per_s`: distinct JSON bodies of up to 64 KiB (``JSONBodies``, ~63 KiB each),
///   one task each, from 2 concurrent tasks, beside C's `compress2` at the same level on the same
///   bodies in the same run: what hashing, deduplication, SQLite and the files add to compression.
/// - `blob.dedup_store_ns`: one 64 KiB body already stored, stored again N times: the wall time
///   per task, beside the per-body time of the distinct run (a hit should cost far less).
///
/// MB here is 10^6 bytes of bodies as given (decompressed).
struct BlobBenchmark {
    let quick: Bool
    let directory: URL

    /// About 64 MiB (`--quick`: 16 MiB) of distinct bodies of up to 64 KiB.
    var distinctBytes: Int { (quick ? 16 : 64) << 20 }
    /// Tasks storing the same 64 KiB body again.
    var dedupTasks: Int { quick ? 5_000 : 20_000 }

    static let bodySize = 64 << 10
    static let blobProducers = 2
    /// Store runs of the distinct bodies, each on a new store, alternating with the baseline.
    static let distinctRuns = 3

    func run() async throws -> [Figure] {
        let (bytes, lengths) = JSONBodies.make(totalBytes: distinctBytes, bodySize: Self.bodySize)
        for index in [0, lengths.count - 1] {
            let start = lengths[..<index].reduce(0, +)
            guard (try? JSONSerialization.jsonObject(with: Data(bytes[start..<(start + lengths[index])]))) != nil else {
                throw BenchError.failed("JSON body \(index) does not parse")
            }
        }
        var bodies: [Data] = []
        bodies.reserveCapacity(lengths.count)
        var offset = 0
        for length in lengths {
            bodies.append(Data(bytes[offset..<(offset + length)]))
            offset += length
        }
        let distinct = try await distinctBodies(bodies, bytes: bytes, lengths: lengths)
        let dedup = try await dedupBody(bodies[0], distinctNanoseconds: distinct.nanosecondsPerBody)
        return [distinct.figure, dedup]
    }

    // MARK: Distinct bodies

    private func distinctBodies(
        _ bodies: [Data], bytes: [UInt8], lengths: [Int]
    ) async throws -> (figure: Figure, nanosecondsPerBody: Double) {
        let level = try LogStore.BlobCompressor().level
        let totalBytes = bytes.count
        let megabytes = Double(totalBytes) / 1e6
        // Baseline and store alternate (after one baseline run that only warms up), each store
        // run on a new store, so noise from the machine hits both sides alike; each side's figure
        // is its median.
        var baselineStored: UInt64 = 0
        _ = try Self.compress2(bytes, lengths, level: level, stored: &baselineStored)
        var baselineRates: [Double] = []
        var seconds: [Double] = []
        var info: LogStore.Info?
        for run in 0..<Self.distinctRuns {
            baselineRates.append(try Self.compress2(bytes, lengths, level: level, stored: &baselineStored))
            let (runSeconds, runInfo) = try await storeDistinct(bodies, totalBytes: totalBytes, run: run)
            seconds.append(runSeconds)
            info = runInfo
        }
        let medianSeconds = Measure.median(seconds)
        let rate = megabytes / medianSeconds
        let baseline = Measure.median(baselineRates)
        let stored = info.map { Double($0.blobsDecompressedSize) / Double(max(1, $0.blobsSize)) } ?? 0
        print(
            "blobs: \(bodies.count) distinct JSON bodies of ~\(totalBytes / bodies.count / 1024) KiB "
                + "(\(FigureReport.format(megabytes)) MB) from \(Self.blobProducers) tasks, stored ratio "
                + String(format: "%.2f", stored) + " (compress2: "
                + String(format: "%.2f", Double(totalBytes) / Double(max(1, baselineStored))) + "); store runs "
                + seconds.map { FigureReport.format(megabytes / $0) }.joined(separator: ", ")
                + " MB/s, compress2 level \(level) runs "
                + baselineRates.map { FigureReport.format($0) }.joined(separator: ", ") + " MB/s")
        let figure = Figure(
            name: "blob.store_mb_per_s", value: rate, baseline: baseline, unit: "MB/s",
            baselineDescription: "C `compress2` alone at the same level (\(level)) on the same \(bodies.count) JSON "
                + "bodies of ≤ 64 KiB; ours: `storeRequest`, 1 task per body, 2 producers, until `flush()`; "
                + "medians of \(Self.distinctRuns) alternating runs",
            target: "≥ 0.8")
        return (figure, medianSeconds * 1e9 / Double(bodies.count))
    }

    /// Stores every body once on a new store; returns the seconds until `flush()` returned and
    /// the store's info, checked: one blob per body, nothing dropped.
    private func storeDistinct(
        _ bodies: [Data], totalBytes: Int, run: Int
    ) async throws -> (seconds: Double, info: LogStore.Info) {
        let url = directory.appendingPathComponent("blobs-\(run).logstore")
        let store = try await BenchStore.open(at: url)
        let before = try await store.info()
        sync()
        let start = Measure.now()
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<Self.blobProducers {
                group.addTask {
                    var index = producer
                    while index < bodies.count {
                        store.storeRequest(
                            Self.pageRequest(page: index + 1), response: Self.pageResponse, error: nil,
                            data: bodies[index])
                        index += Self.blobProducers
                    }
                }
            }
        }
        try await store.flush()
        let seconds = Measure.seconds(since: start)
        let info = try await store.info()
        try await BenchStore.closeAndDelete(store, at: url)
        guard info.droppedEventCount == 0, info.blobCount - before.blobCount == bodies.count,
            info.taskCount == bodies.count, info.blobsDecompressedSize == Int64(totalBytes)
        else {
            throw BenchError.failed(
                "distinct bodies: \(info.blobCount - before.blobCount) blobs, \(info.taskCount) tasks for "
                    + "\(bodies.count) bodies, \(info.blobsDecompressedSize) of \(totalBytes) bytes, "
                    + "dropped \(info.droppedEventCount)")
        }
        return (seconds, info)
    }

    /// One run of the C baseline: `compress2` per body; returns MB/s.
    private static func compress2(
        _ bytes: [UInt8], _ lengths: [Int], level: Int, stored: inout UInt64
    ) throws -> Double {
        var rate = 0.0
        var message = [CChar](repeating: 0, count: 256)
        let code = lsb_zlib_compress_mb_per_s(
            bytes, lengths, lengths.count, Int32(level), &rate, &stored, &message, Int32(message.count))
        guard code == 0 else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw BenchError.failed("C zlib baseline: \(text)")
        }
        return rate
    }

    // MARK: The same body again

    private func dedupBody(_ body: Data, distinctNanoseconds: Double) async throws -> Figure {
        let url = directory.appendingPathComponent("dedup.logstore")
        let store = try await BenchStore.open(at: url)
        let count = dedupTasks
        let before = try await store.info()
        // Stored once first, so every timed task is a hit.
        store.storeRequest(Self.pageRequest(page: 1), response: Self.pageResponse, error: nil, data: body)
        try await store.flush()
        sync()
        let start = Measure.now()
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<Self.blobProducers {
                group.addTask {
                    var index = producer
                    while index < count {
                        store.storeRequest(
                            Self.pageRequest(page: 1), response: Self.pageResponse, error: nil, data: body)
                        index += Self.blobProducers
                    }
                }
            }
        }
        try await store.flush()
        let seconds = Measure.seconds(since: start)
        let info = try await store.info()
        try await BenchStore.closeAndDelete(store, at: url)
        guard info.droppedEventCount == 0, info.blobCount - before.blobCount == 1, info.taskCount == count + 1 else {
            throw BenchError.failed(
                "same body: blob count grew by \(info.blobCount - before.blobCount) (expected 1), "
                    + "\(info.taskCount) tasks of \(count + 1), dropped \(info.droppedEventCount)")
        }
        let nanoseconds = seconds * 1e9 / Double(count)
        print(
            "dedup: the same \(body.count / 1024) KiB body \(count) times from \(Self.blobProducers) tasks in "
                + String(format: "%.2f s", seconds) + ", \(FigureReport.format(nanoseconds)) ns per task "
                + "(a new body: \(FigureReport.format(distinctNanoseconds)) ns)")
        return Figure(
            name: "blob.dedup_store_ns", value: nanoseconds, baseline: distinctNanoseconds, unit: "ns",
            baselineDescription: "time per body of `blob.store_mb_per_s` (a new 64 KiB body) in this run; "
                + "ours: wall time / \(count) tasks storing a body already stored",
            target: "≪ 1.0")
    }

    // MARK: Requests

    private static let pagesURL = "https://api.example.com/v2/orders?per_page=40&page="

    /// A small GET for one page of orders.
    private static func pageRequest(page: Int) -> NetworkRequest {
        NetworkRequest(
            url: URL(string: pagesURL + String(page)), method: "GET",
            headers: ["Accept": "application/json", "User-Agent": "ShopApp/5.13.0 (Linux)"])
    }

    private static let pageResponse = NetworkResponse(
        url: URL(string: "https://api.example.com/v2/orders"), statusCode: 200,
        headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"])
}

/// A JSON body with slots (fixed-width numbers, hex, timestamps) that a seed fills in.
struct BodyTemplate: Sendable {
    enum Kind: Sendable {
        /// `width` decimal digits, the first not zero (a valid JSON number).
        case decimal(Int)
        /// `width` lowercase hexadecimal digits.
        case hex(Int)
        /// `2025-MM-DDTHH:MM:SSZ`.
        case timestamp
        /// `width` random bytes, eight from each value of the stream (little-endian).
        case random(Int)
    }

    struct Slot: Sendable {
        var offset: Int
        var kind: Kind
    }

    private(set) var bytes: [UInt8] = []
    private(set) var slots: [Slot] = []

    mutating func text(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func decimal(_ width: Int) {
        slot(.decimal(width), width: width)
    }

    mutating func hex(_ width: Int) {
        slot(.hex(width), width: width)
    }

    mutating func timestamp() {
        slot(.timestamp, width: 20)
    }

    mutating func random(_ width: Int) {
        slot(.random(width), width: width)
    }

    mutating func uuid() {
        hex(8)
        text("-")
        hex(4)
        text("-4")
        hex(3)
        text("-a")
        hex(3)
        text("-")
        hex(12)
    }

    mutating func append(_ other: BodyTemplate) {
        let shift = bytes.count
        bytes += other.bytes
        slots += other.slots.map { Slot(offset: $0.offset + shift, kind: $0.kind) }
    }

    private mutating func slot(_ kind: Kind, width: Int) {
        slots.append(Slot(offset: bytes.count, kind: kind))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
    }

    /// The body for `seed`: the same seed gives the same bytes.
    func make(seed: UInt64) -> Data {
        var state = BenchRow.splitmix64(seed &* 0x2545_F491_4F6C_DD1D ^ UInt64(bytes.count))
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            return BenchRow.splitmix64(state)
        }
        var data = Data(bytes)
        data.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) in
            for slot in slots {
                switch slot.kind {
                case .decimal(let width):
                    var random = next()
                    raw[slot.offset] = UInt8(ascii: "1") + UInt8(random % 9)
                    random /= 9
                    for position in 1..<max(1, width) {
                        if position % 18 == 0 { random = next() }
                        raw[slot.offset + position] = UInt8(ascii: "0") + UInt8(random % 10)
                        random /= 10
                    }
                case .hex(let width):
                    var random = next()
                    for position in 0..<width {
                        if position > 0 && position % 16 == 0 { random = next() }
                        raw[slot.offset + position] = Self.hexDigits[Int(random & 0xF)]
                        random >>= 4
                    }
                case .random(let width):
                    for start in stride(from: 0, to: width, by: 8) {
                        let random = next()
                        for byte in 0..<min(8, width - start) {
                            raw[slot.offset + start + byte] = UInt8(truncatingIfNeeded: random >> UInt64(8 * byte))
                        }
                    }
                case .timestamp:
                    // 2025-MM-DDTHH:MM:SSZ: each field two digits and the separator after it.
                    let random = next()
                    var position = slot.offset
                    for byte in "2025-".utf8 {
                        raw[position] = byte
                        position += 1
                    }
                    for (index, field) in Self.timestampFields.enumerated() {
                        let value = field.first + Int((random >> UInt64(8 * index)) % UInt64(field.count))
                        raw[position] = UInt8(ascii: "0") + UInt8(value / 10)
                        raw[position + 1] = UInt8(ascii: "0") + UInt8(value % 10)
                        raw[position + 2] = field.separator
                        position += 3
                    }
                }
            }
        }
        return data
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    /// Month, day, hour, minute, second: the first value, how many values, the byte after.
    private static let timestampFields: [(first: Int, count: Int, separator: UInt8)] = [
        (1, 12, UInt8(ascii: "-")), (1, 28, UInt8(ascii: "T")), (0, 24, UInt8(ascii: ":")),
        (0, 60, UInt8(ascii: ":")), (0, 60, UInt8(ascii: "Z")),
    ]

    /// `digits` lowercase hexadecimal digits of `value` (at most 16).
    static func hex(_ value: UInt64, digits: Int) -> String {
        var value = value
        var bytes = [UInt8](repeating: 0, count: digits)
        for index in 0..<digits {
            bytes[index] = hexDigits[Int(value & 0xF)]
            value >>= 4
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
