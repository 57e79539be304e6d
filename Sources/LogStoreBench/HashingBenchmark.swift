import CBenchBaseline
import Foundation
@_spi(Benchmark) import LogStore

/// `sha1.mb_per_s` and `zlib.compress_mb_per_s`: what the store spends on each network body (its
/// SHA-1 key, then zlib), each beside a plain baseline run on the same bytes in the same run.
///
/// MB here is 10^6 bytes. Each side runs several times, the two sides alternating so that noise
/// from the machine hits both alike, and the figure is the median.
struct HashingBenchmark {
    let quick: Bool
    let directory: URL

    /// 256 MiB (`--quick`: 64 MiB) of random bytes for SHA-1.
    var sha1Bytes: Int { (quick ? 64 : 256) << 20 }
    /// About 32 MiB (`--quick`: 8 MiB) of JSON bodies for zlib.
    var zlibBytes: Int { (quick ? 8 : 32) << 20 }
    /// Bodies are compressed one at a time, each at most this size.
    static let bodySize = 64 << 10
    static let sha1sumPath = "/usr/bin/sha1sum"

    func run() throws -> [Figure] {
        [try sha1(), try zlib()]
    }

    // MARK: SHA-1

    /// `LogStore.blobKey(for:)` on a temp file of random bytes mapped into memory, against the
    /// `sha1sum` process on the same file. Both read it from the page cache (it was just written);
    /// `sha1sum`'s time includes starting the process (about a millisecond).
    private func sha1() throws -> Figure {
        let url = directory.appendingPathComponent("sha1-input.bin")
        var data = Data(count: sha1Bytes)
        data.withUnsafeMutableBytes { raw in
            var state: UInt64 = 0x5A1_5EED
            for index in 0..<(raw.count / 8) {
                state &+= 0x9E37_79B9_7F4A_7C15
                raw.storeBytes(of: BenchRow.splitmix64(state), toByteOffset: index * 8, as: UInt64.self)
            }
        }
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        // Written back now, so neither side competes with the writeback.
        sync()

        let megabytes = Double(sha1Bytes) / 1e6
        let expected = LogStore.blobKey(for: data)  // also warms the code and the CPU
        var inMemory: [Double] = []
        var fromFile: [Double] = []
        var baseline: [Double] = []
        for _ in 0..<(quick ? 5 : 3) {
            var start = Measure.now()
            guard LogStore.blobKey(for: data) == expected else { throw BenchError.failed("SHA-1 differs between runs") }
            inMemory.append(megabytes / Measure.seconds(since: start))

            start = Measure.now()
            let mapped = try Data(contentsOf: url, options: .alwaysMapped)
            let key = LogStore.blobKey(for: mapped)
            fromFile.append(megabytes / Measure.seconds(since: start))
            guard key == expected else { throw BenchError.failed("SHA-1 of the mapped file differs: \(key)") }

            start = Measure.now()
            let theirs = try Self.sha1sum(url)
            baseline.append(megabytes / Measure.seconds(since: start))
            guard theirs == expected else {
                throw BenchError.failed("sha1sum says \(theirs), LogStore.blobKey(for:) says \(expected)")
            }
        }
        print(
            "sha1: \(sha1Bytes >> 20) MiB random, medians: blobKey on the mapped file "
                + "\(FigureReport.format(Measure.median(fromFile))) MB/s, in memory "
                + "\(FigureReport.format(Measure.median(inMemory))) MB/s, sha1sum "
                + "\(FigureReport.format(Measure.median(baseline))) MB/s; keys agree")
        return Figure(
            name: "sha1.mb_per_s", value: Measure.median(fromFile), baseline: Measure.median(baseline), unit: "MB/s",
            baselineDescription: "`sha1sum` process on the same \(sha1Bytes >> 20) MiB file (ours: `blobKey(for:)` on it mapped)",
            target: "≥ 1.0")
    }

    /// Runs `sha1sum FILE` and returns the hex digest it prints.
    private static func sha1sum(_ url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sha1sumPath)
        process.arguments = [url.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let digest = String(decoding: text, as: UTF8.self).split(separator: " ").first
        else {
            throw BenchError.failed("\(sha1sumPath) failed (status \(process.terminationStatus))")
        }
        return String(digest)
    }

    // MARK: zlib

    /// `LogStore.BlobCompressor` (the store's path: one reused zlib stream, kept only when smaller)
    /// against zlib's `compress2` called from C for each body, same level, same bodies.
    private func zlib() throws -> Figure {
        let (bytes, lengths) = JSONBodies.make(totalBytes: zlibBytes, bodySize: Self.bodySize)
        for index in [0, lengths.count - 1] {
            let start = lengths[..<index].reduce(0, +)
            guard (try? JSONSerialization.jsonObject(with: Data(bytes[start..<(start + lengths[index])]))) != nil else {
                throw BenchError.failed("JSON body \(index) does not parse")
            }
        }
        let compressor = try LogStore.BlobCompressor()
        let megabytes = Double(bytes.count) / 1e6

        var ours: [Double] = []
        var baseline: [Double] = []
        var ourStored = 0
        var theirStored: UInt64 = 0
        for run in 0...(quick ? 7 : 5) {  // run 0 warms both up and is not counted
            var stored = 0
            let start = Measure.now()
            try bytes.withUnsafeBytes { raw in
                var offset = 0
                for length in lengths {
                    let body = UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + length)])
                    stored += try compressor.compress(body)?.count ?? length
                    offset += length
                }
            }
            let rate = megabytes / Measure.seconds(since: start)
            ourStored = stored

            var theirRate = 0.0
            var message = [CChar](repeating: 0, count: 256)
            let code = lsb_zlib_compress_mb_per_s(
                bytes, lengths, lengths.count, Int32(compressor.level), &theirRate, &theirStored, &message,
                Int32(message.count))
            guard code == 0 else {
                let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw BenchError.failed("C zlib baseline: \(text)")
            }
            if run > 0 {
                ours.append(rate)
                baseline.append(theirRate)
            }
        }
        // Same level, same zlib, same stream parameters: the outputs must be the same size,
        // or the comparison is not like for like.
        guard UInt64(ourStored) == theirStored else {
            throw BenchError.failed("compressed sizes differ: store path \(ourStored), compress2 \(theirStored)")
        }
        print(
            "zlib: \(lengths.count) JSON bodies of ~\(bytes.count / lengths.count / 1024) KiB "
                + "(\(FigureReport.format(megabytes)) MB), level \(compressor.level), ratio "
                + String(format: "%.2f", Double(bytes.count) / Double(ourStored)) + ", medians: store path "
                + "\(FigureReport.format(Measure.median(ours))) MB/s, compress2 "
                + "\(FigureReport.format(Measure.median(baseline))) MB/s")
        return Figure(
            name: "zlib.compress_mb_per_s", value: Measure.median(ours), baseline: Measure.median(baseline),
            unit: "MB/s",
            baselineDescription: "C `compress2` per body at the same level (\(compressor.level)), same 64 KiB JSON bodies",
            target: "≥ 1.0")
    }
}

/// Deterministic JSON API responses for the compression figure: pages of e-commerce orders
/// (customer, line items, payment, shipping address, tags) as a REST API returns them, each page a
/// complete document of at most `bodySize` bytes. Field names and most values repeat from object
/// to object, as in real responses, while ids, UUIDs, timestamps, amounts and tracking numbers vary.
enum JSONBodies {
    static func make(totalBytes: Int, bodySize: Int) -> (bytes: [UInt8], lengths: [Int]) {
        var generator = Generator(state: 0x0DD5_EED5)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(totalBytes + bodySize)
        var lengths: [Int] = []
        var page = 1
        var orderID = 1_840_000
        while bytes.count < totalBytes {
            var body = Array(#"{"data":["#.utf8)
            var count = 0
            // The page trailer takes under 400 bytes.
            while true {
                let order = Array(generator.order(id: orderID).utf8)
                guard body.count + order.count + 1 + 400 <= bodySize else { break }
                if count > 0 { body.append(UInt8(ascii: ",")) }
                body += order
                count += 1
                orderID += 1
            }
            let requestID = generator.hex(16)
            body += Array(
                (#"],"meta":{"page":\#(page),"per_page":\#(count),"total":\#(count * 2_000),"#
                    + #""request_id":"\#(requestID)","api_version":"2024-10-01"},"#
                    + #""links":{"self":"https://api.example.com/v2/orders?page=\#(page)","#
                    + #""next":"https://api.example.com/v2/orders?page=\#(page + 1)","#
                    + #""prev":\#(page > 1 ? "\"https://api.example.com/v2/orders?page=\(page - 1)\"" : "null")}}"#)
                    .utf8)
            precondition(body.count <= bodySize)
            bytes += body
            lengths.append(body.count)
            page += 1
        }
        return (bytes, lengths)
    }

    private struct Generator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            return BenchRow.splitmix64(state)
        }

        mutating func below(_ bound: Int) -> Int {
            Int(next() % UInt64(bound))
        }

        mutating func pick(_ values: [String]) -> String {
            values[below(values.count)]
        }

        mutating func hex(_ digits: Int) -> String {
            var text = ""
            while text.count < digits {
                text += String(next(), radix: 16).leftPadded(to: 16)
            }
            return String(text.prefix(digits))
        }

        mutating func timestamp() -> String {
            let month = 1 + below(12), day = 1 + below(28)
            let hour = below(24), minute = below(60), second = below(60)
            return "2025-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))Z"
        }

        func two(_ value: Int) -> String {
            value < 10 ? "0\(value)" : "\(value)"
        }

        func money(_ cents: Int) -> String {
            "\(cents / 100).\(two(cents % 100))"
        }

        mutating func order(id: Int) -> String {
            let first = pick(Self.firstNames), last = pick(Self.lastNames)
            let country = pick(Self.countries)
            var items: [String] = []
            var total = 0
            for _ in 0..<(1 + below(4)) {
                let product = below(Self.products.count)
                let quantity = 1 + below(3)
                let price = 199 + (product * 7919) % 25_000
                total += price * quantity
                items.append(
                    #"{"sku":"SKU-\#(10_000 + product * 37)","name":"\#(Self.products[product])","#
                        + #""quantity":\#(quantity),"unit_price":"\#(money(price))","currency":"EUR","#
                        + #""tax_rate":"0.\#(pick(["19", "07", "20", "21"]))","#
                        + #""description":"\#(sentence())","weight_grams":\#(20 + below(4_000))}"#)
            }
            let tags = (0..<below(4)).map { _ in "\"\(pick(Self.tags))\"" }.joined(separator: ",")
            let shipping = below(3) * 495
            let status = pick(Self.statuses)
            let shipped = status == "shipped" || status == "delivered"
            return #"{"id":\#(id),"uuid":"\#(hex(8))-\#(hex(4))-4\#(hex(3))-a\#(hex(3))-\#(hex(12))","#
                + #""status":"\#(status)","created_at":"\#(timestamp())","updated_at":"\#(timestamp())","#
                + #""customer":{"id":\#(100_000 + below(50_000)),"name":"\#(first) \#(last)","#
                + #""email":"\#(first.lowercased()).\#(last.lowercased())@\#(pick(Self.domains))","#
                + #""phone":"+\#(30 + below(20)) \#(100 + below(900)) \#(1_000_000 + below(9_000_000))","#
                + #""country":"\#(country)","is_vip":\#(below(10) == 0),"marketing_opt_in":\#(below(2) == 0)},"#
                + #""items":[\#(items.joined(separator: ","))],"#
                + #""subtotal":"\#(money(total))","shipping_cost":"\#(money(shipping))","#
                + #""total":"\#(money(total + shipping))","currency":"EUR","#
                + #""payment":{"method":"\#(pick(["card", "paypal", "sepa_debit", "klarna"]))","#
                + #""brand":"\#(pick(["visa", "mastercard", "amex"]))","last4":"\#(1000 + below(9000))","#
                + #""captured":\#(status != "pending")},"#
                + #""shipping":{"carrier":"\#(pick(["dhl", "ups", "dpd", "gls", "hermes"]))","#
                + #""tracking_number":\#(shipped ? "\"JJD\(hex(10).uppercased())\"" : "null"),"#
                + #""address":{"street":"\#(1 + below(200)) \#(pick(Self.streets))","city":"\#(pick(Self.cities))","#
                + #""postal_code":"\#(10_000 + below(89_999))","country":"\#(country)"}},"#
                + #""tags":[\#(tags)],"notes":\#(below(8) == 0 ? "\"Please leave at the front door\"" : "null"),"#
                + #""metadata":{"source":"\#(pick(["ios", "android", "web", "pos"]))","#
                + #""app_version":"\#(pick(["5.12.0", "5.12.1", "5.13.0"]))","experiment":null,"#
                + #""client_ip":"\#(below(224)).\#(below(256)).\#(below(256)).\#(below(256))","#
                + #""risk_score":0.\#(1000 + below(9000)),"session_id":"\#(hex(24))"}}"#
        }

        /// A product blurb: 6–13 words from a small vocabulary, as catalogue text is.
        mutating func sentence() -> String {
            var words: [String] = []
            for _ in 0..<(6 + below(8)) { words.append(pick(Self.words)) }
            return words.joined(separator: " ").prefix(1).uppercased() + words.joined(separator: " ").dropFirst() + "."
        }

        static let words = [
            "durable", "compact", "aluminium", "wireless", "fast", "charging", "premium", "lightweight", "design",
            "for", "with", "and", "the", "your", "desk", "travel", "office", "home", "braided", "silent", "quiet",
            "adjustable", "height", "ergonomic", "matte", "black", "white", "silver", "recycled", "materials",
            "two-year", "warranty", "included", "compatible", "all", "devices", "low", "latency", "high",
            "resolution", "colour", "accurate", "energy", "efficient", "tool-free", "assembly", "in", "minutes",
        ]

        static let firstNames = [
            "Ada", "Grace", "Alan", "Linus", "Margaret", "Dennis", "Barbara", "Ken", "Frances", "John", "Radia",
            "Edsger", "Hedy", "Tim", "Karen", "Niklaus",
        ]
        static let lastNames = [
            "Lovelace", "Hopper", "Turing", "Torvalds", "Hamilton", "Ritchie", "Liskov", "Thompson", "Allen",
            "McCarthy", "Perlman", "Dijkstra", "Lamarr", "Berners-Lee", "Jones", "Wirth",
        ]
        static let domains = ["example.com", "mail.example.org", "example.net", "company.example"]
        static let countries = ["DE", "FR", "GB", "NL", "AT", "CH", "ES", "IT", "SE", "PL"]
        static let statuses = ["pending", "paid", "shipped", "delivered", "cancelled", "refunded"]
        static let tags = ["gift", "express", "first_order", "b2b", "priority", "fragile", "subscription"]
        static let streets = ["Main Street", "Station Road", "Church Lane", "High Street", "Park Avenue", "Mill Road"]
        static let cities = ["Berlin", "Paris", "London", "Amsterdam", "Vienna", "Zurich", "Madrid", "Rome"]
        static let products = [
            "USB-C cable 2 m", "Wireless mouse", "Mechanical keyboard", "27-inch monitor", "Laptop stand",
            "Noise-cancelling headphones", "Webcam 1080p", "Desk lamp", "Ergonomic chair", "Docking station",
            "Portable SSD 1 TB", "Phone case", "Screen protector", "Charging pad", "HDMI adapter", "Smart plug",
        ]
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
