import Foundation

// Parsers of the /proc files a snapshot reads (pure functions over their text; the shared helpers
// and the rules every parser follows are in HostSnapshot+Parsing.swift).

extension HostSnapshot {
    /// Parses `/proc/meminfo`, returning total and available memory in bytes.
    ///
    /// Kernels before 3.14 lack `MemAvailable`; the classic free + buffers + cache
    /// estimate stands in for it there.
    static func parseMemInfo(_ text: String) -> (total: Int64, available: Int64) {
        var total: Int64?
        var available: Int64?
        var free: Int64?
        var buffers: Int64?
        var cached: Int64?
        for line in lines(text) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let key = trimmedBytes(line[..<colon])
            let value = { memInfoBytes(line[line.index(after: colon)...]) }
            if key.elementsEqual("MemTotal".utf8) { total = total ?? value() }
            else if key.elementsEqual("MemAvailable".utf8) { available = available ?? value() }
            else if key.elementsEqual("MemFree".utf8) { free = free ?? value() }
            else if key.elementsEqual("Buffers".utf8) { buffers = buffers ?? value() }
            else if key.elementsEqual("Cached".utf8) { cached = cached ?? value() }
            // The keys of interest are at the top; the rest of the file is dozens of lines.
            if total != nil, available != nil { break }
        }
        let estimate = free.map { saturatingSum($0, buffers ?? 0, cached ?? 0) }
        return (total ?? 0, available ?? estimate ?? 0)
    }

    /// Extracts a human-readable processor model from `/proc/cpuinfo` text.
    ///
    /// x86 says `model name`; other architectures use other keys, and modern ARM64
    /// kernels give only implementer and part numbers, which are named where known.
    static func parseCPUModel(_ text: String) -> String {
        // Case matters: "processor" on x86 is the CPU index, "Processor" on old ARM is the model.
        let modelKeys = ["model name", "Processor", "cpu model", "cpu", "Hardware"]
        var found: [String?] = Array(repeating: nil, count: modelKeys.count)
        var implementer: String?
        var part: String?
        for line in lines(text) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let key = trimmedBytes(line[..<colon])
            let value = trimmedBytes(line[line.index(after: colon)...])
            guard !value.isEmpty else { continue }
            // The first processor's block is representative; later blocks only repeat it.
            if let slot = modelKeys.firstIndex(where: { key.elementsEqual($0.utf8) }) {
                if found[slot] == nil { found[slot] = String(decoding: value, as: UTF8.self) }
                if slot == 0 { break }
            } else if key.elementsEqual("CPU implementer".utf8) {
                implementer = implementer ?? String(decoding: value, as: UTF8.self)
            } else if key.elementsEqual("CPU part".utf8) {
                part = part ?? String(decoding: value, as: UTF8.self)
            }
        }
        if let model = found.lazy.compactMap({ $0 }).first {
            return model
        }
        if let implementer, let part {
            return armCPUName(implementer: implementer, part: part)
        }
        return ""
    }

    /// Parses `/proc/uptime`, whose first field is seconds since boot.
    static func parseUptime(_ text: String) -> Double {
        guard let first = text.utf8.split(whereSeparator: isSpace).first,
              let seconds = Double(String(decoding: first, as: UTF8.self)),
              seconds.isFinite, seconds >= 0
        else { return 0 }
        return seconds
    }

    private static func memInfoBytes(_ text: Bytes) -> Int64? {
        let parts = text.split(whereSeparator: isSpace)
        guard let digits = parts.first, !digits.isEmpty, digits.count <= 18,
              digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let value = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
        let unit = parts.dropFirst().first
        guard let unit, unit.count == 2,
              unit.first.map({ $0 | 0x20 }) == UInt8(ascii: "k"),
              unit.last.map({ $0 | 0x20 }) == UInt8(ascii: "b")
        else { return value }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: 1024)
        return overflow ? nil : bytes
    }

    private static func saturatingSum(_ values: Int64...) -> Int64 {
        values.reduce(0) { sum, value in
            let (result, overflow) = sum.addingReportingOverflow(value)
            return overflow ? Int64.max : result
        }
    }

    private static func armCPUName(implementer: String, part: String) -> String {
        let vendors: [String: String] = [
            "0x41": "ARM", "0x42": "Broadcom", "0x43": "Cavium", "0x48": "HiSilicon",
            "0x4e": "NVIDIA", "0x50": "APM", "0x51": "Qualcomm", "0x61": "Apple",
            "0xc0": "Ampere",
        ]
        // Only the Arm-designed cores that dominate servers (Graviton, Altra, Grace)
        // and common boards; anything else is shown by number, which is still searchable.
        let armCores: [String: String] = [
            "0xd03": "Cortex-A53", "0xd05": "Cortex-A55", "0xd08": "Cortex-A72",
            "0xd0b": "Cortex-A76", "0xd0c": "Neoverse-N1", "0xd40": "Neoverse-V1",
            "0xd49": "Neoverse-N2", "0xd4f": "Neoverse-V2", "0xd8e": "Neoverse-N3",
            "0xd84": "Neoverse-V3",
        ]
        let implementerKey = implementer.lowercased()
        let vendor = vendors[implementerKey] ?? "implementer \(implementer)"
        if implementerKey == "0x41", let core = armCores[part.lowercased()] {
            return "\(vendor) \(core)"
        }
        return "\(vendor) part \(part)"
    }
}
