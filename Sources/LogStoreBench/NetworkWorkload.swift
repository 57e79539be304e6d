import CBenchBaseline
import Foundation
import LogStore

/// The file that tells the naive C pipeline (`lsb_network_naive`) exactly what the benchmark's
/// `storeRequest` calls get: the request line, the status, and four templates (both bodies, and
/// both heads as header JSON) that each task's seed fills. The format and the filling are
/// specified at the top of `Sources/CBenchBaseline/network_workload.c`.
///
/// The C side fills the templates the way ``BodyTemplate/make(seed:)`` does, so the child builds
/// its bodies while it runs, as the producers do, instead of reading hundreds of MB;
/// ``verify(_:against:)`` compares the two before anything is measured.
struct NetworkWorkload {
    let bodies: NetworkBodies

    /// One template as the file holds it.
    private struct Part {
        var bytes: [UInt8]
        var slots: [(offset: Int, kind: Character, width: Int)]
        var salt: UInt64 = 0
    }

    /// Stands for a task's `X-Request-ID` in a head's JSON (16 characters, as the id).
    private static let requestIDPlaceholder = "@@REQUEST-ID-@@@"

    func write(to url: URL) throws {
        guard let host = bodies.url?.host, let address = bodies.url?.absoluteString else {
            throw BenchError.failed("network workload: the bodies' URL has no host")
        }
        var file = Data()
        func line(_ text: String) { file.append(contentsOf: Array((text + "\n").utf8)) }
        line("lsb-network 1")
        line("seeds \(NetworkBodies.pool) \(NetworkBodies.seedBase)")
        line("method \(NetworkBodies.method)")
        line("url \(address)")
        line("host \(host)")
        line("status \(NetworkBodies.statusCode)")
        var response = Self.part(bodies.response)
        response.salt = bodies.responseSalt
        let parts = [
            Self.part(bodies.request), response,
            try Self.headPart(bodies.requestHeaders(requestID: Self.requestIDPlaceholder)),
            try Self.headPart(bodies.responseHeaders(requestID: Self.requestIDPlaceholder)),
        ]
        for (number, part) in parts.enumerated() {
            line("part \(number) \(part.bytes.count) \(part.slots.count) \(part.salt)")
            file.append(contentsOf: part.bytes)
            line("")
            for slot in part.slots { line("\(slot.offset) \(slot.kind) \(slot.width)") }
        }
        try file.write(to: url)
    }

    /// The JSON a naive program stores for a head: the headers as one object, keys sorted.
    static func headJSON(_ headers: [String: String]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: headers, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    private static func headPart(_ headers: [String: String]) throws -> Part {
        var bytes = try headJSON(headers)
        let placeholder = Array(requestIDPlaceholder.utf8)
        guard let offset = (0...(bytes.count - placeholder.count)).first(where: {
            bytes[$0..<($0 + placeholder.count)].elementsEqual(placeholder)
        }) else {
            throw BenchError.failed("network workload: no request id in the head's JSON")
        }
        bytes.replaceSubrange(offset..<(offset + placeholder.count), with: repeatElement(UInt8(ascii: "0"), count: 16))
        return Part(bytes: bytes, slots: [(offset, "i", 16)])
    }

    private static func part(_ template: BodyTemplate) -> Part {
        Part(
            bytes: template.bytes,
            slots: template.slots.map { slot in
                switch slot.kind {
                case .decimal(let width): (slot.offset, "d", width)
                case .hex(let width): (slot.offset, "h", width)
                case .timestamp: (slot.offset, "t", 20)
                case .random(let width): (slot.offset, "r", width)
                }
            })
    }

    /// Checks that the JSON bodies are ``NetworkBodies/size`` bytes of valid JSON.
    static func checkJSON(_ bodies: NetworkBodies) throws {
        for seed: UInt64 in [0, 12_345] {
            for body in [bodies.request.make(seed: seed), bodies.response.make(seed: seed)] {
                guard body.count == NetworkBodies.size, (try? JSONSerialization.jsonObject(with: body)) != nil else {
                    throw BenchError.failed("network body (seed \(seed)) is not \(NetworkBodies.size) bytes of JSON")
                }
            }
        }
    }

    /// Checks, in this process, that the C side reads the file at `url` back into the very bodies
    /// and heads `bodies` gives `storeRequest` for a few tasks (repeated and distinct ones), and
    /// that its SHA-1 is the store's key.
    static func verify(_ url: URL, against bodies: NetworkBodies) throws {
        var message = [CChar](repeating: 0, count: 512)
        var loaded: OpaquePointer?
        guard lsb_net_load(url.path, &loaded, &message, Int32(message.count)) == 0, let workload = loaded else {
            throw BenchError.failed("network workload: \(Self.string(message))")
        }
        defer { lsb_net_free(workload) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var hex = [CChar](repeating: 0, count: 41)
        // Every way the last block can end: padding in the same block, in a second, or alone.
        let sample = (0..<130).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for length in 0...sample.count {
            lsb_sha1_hex(sample, length, &hex)
            guard Self.string(hex) == LogStore.blobKey(for: Array(sample[0..<length])) else {
                throw BenchError.failed("network workload: the C SHA-1 of \(length) bytes differs from the store's")
            }
        }
        for task in [0, 1, 2, 3, 64, 65, 66, 199_999] {
            let seed = NetworkBodies.seed(task: task)
            let requestID = NetworkBodies.requestID(task: task)
            let expected: [[UInt8]] = [
                Array(bodies.request.make(seed: seed)), Array(bodies.response.make(seed: seed ^ bodies.responseSalt)),
                try headJSON(bodies.requestHeaders(requestID: requestID)),
                try headJSON(bodies.responseHeaders(requestID: requestID)),
            ]
            for (part, want) in expected.enumerated() {
                let length = lsb_net_part(workload, UInt64(task), Int32(part), &buffer, buffer.count)
                guard length >= 0, buffer[0..<length].elementsEqual(want) else {
                    throw BenchError.failed("network workload: the C side's part \(part) of task \(task) differs")
                }
            }
            lsb_sha1_hex(expected[1], expected[1].count, &hex)
            guard Self.string(hex) == LogStore.blobKey(for: expected[1]) else {
                throw BenchError.failed("network workload: the C SHA-1 of task \(task)'s response differs from the store's")
            }
        }
    }

    /// A NUL-terminated C string from a buffer.
    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
