import Foundation
import Testing
@testable import LogStore

@Suite("Host snapshot")
struct HostSnapshotTests {
    // MARK: Reading this machine

    @Test func currentSnapshotDescribesThisMachine() throws {
        let snapshot = HostSnapshot.current(volume: FileManager.default.temporaryDirectory)

        #expect(!snapshot.hostname.isEmpty)
        #expect(!snapshot.kernelVersion.isEmpty)
        #expect(!snapshot.architecture.isEmpty)
        #expect(snapshot.cpuCount > 0)
        #expect(snapshot.memoryTotal > 0)
        #expect(snapshot.memoryAvailable <= snapshot.memoryTotal)
        #expect(snapshot.diskTotal > 0)
        #expect(snapshot.diskFree <= snapshot.diskTotal)
        #expect(snapshot.uptime > 0)
        #expect(snapshot.productName.map { !$0.isEmpty } ?? true)
        #expect(snapshot.vendor.map { !$0.isEmpty } ?? true)

        let names = snapshot.networkInterfaces.map(\.name)
        #expect(names == names.sorted())
        let loopback = try #require(snapshot.networkInterfaces.first { $0.addresses.contains("127.0.0.1") })
        #expect(loopback.name.hasPrefix("lo"))
    }

    @Test func diskFiguresComeFromTheNearestExistingDirectory() {
        // A new store's directory does not exist yet when its snapshot is taken.
        let missing = FileManager.default.temporaryDirectory
            .appendingPathComponent("host-snapshot-\(UUID().uuidString)")
            .appendingPathComponent("nested/store.sqlite")
        let snapshot = HostSnapshot.current(volume: missing)
        #expect(snapshot.diskTotal > 0)
        #expect(snapshot.diskFree >= 0)
    }

    @Test func currentAppSnapshotDescribesTheTestRunner() {
        let app = AppSnapshot.current(version: "2.5.1")
        #expect(!app.name.isEmpty)
        #expect(!app.name.contains("/"))
        #expect(app.version == "2.5.1")
        #expect(app.pid == ProcessInfo.processInfo.processIdentifier)
        #expect(app.arguments == ProcessInfo.processInfo.arguments)
        #expect(app.residentMemory > 0)

        #expect(AppSnapshot.current(version: nil).version == nil)
    }

    // MARK: os-release

    @Test func parsesDebianOSRelease() {
        let text = """
            PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
            NAME="Debian GNU/Linux"
            VERSION_ID="12"
            VERSION="12 (bookworm)"
            VERSION_CODENAME=bookworm
            ID=debian
            HOME_URL="https://www.debian.org/"
            """
        let os = HostSnapshot.parseOSRelease(text)
        #expect(os == .init(name: "Debian GNU/Linux", version: "12", prettyName: "Debian GNU/Linux 12 (bookworm)"))
    }

    @Test func parsesOSReleaseQuotingAndSpacing() {
        let text = "# comment line\r\n\n   NAME = 'Single Quoted'  \r\n"
            + "PRETTY_NAME=\"Say \\\"hi\\\" \\\\ there\"\n"
            + "VERSION_ID=rolling\n"
            + "NOT A KEY VALUE LINE\n"
        let os = HostSnapshot.parseOSRelease(text)
        #expect(os.name == "Single Quoted")
        #expect(os.prettyName == #"Say "hi" \ there"#)
        #expect(os.version == "rolling")
    }

    @Test func osReleaseFallsBackWhenKeysAreMissing() {
        let versionOnly = HostSnapshot.parseOSRelease("NAME=Arch\nVERSION=\"2024.01\"\n")
        #expect(versionOnly == .init(name: "Arch", version: "2024.01", prettyName: "Arch 2024.01"))

        let emptyVersionID = HostSnapshot.parseOSRelease("NAME=X\nVERSION_ID=\"\"\nVERSION=7\n")
        #expect(emptyVersionID.version == "7")

        let unterminated = HostSnapshot.parseOSRelease("NAME=\"Half quoted\n")
        #expect(unterminated.name == "Half quoted")

        #expect(HostSnapshot.parseOSRelease("") == .init(name: "", version: "", prettyName: ""))
    }

    // MARK: meminfo

    @Test func parsesMemInfo() {
        let text = """
            MemTotal:       24683652 kB
            MemFree:        24571020 kB
            MemAvailable:   24469076 kB
            Buffers:            2048 kB
            """
        let memory = HostSnapshot.parseMemInfo(text)
        #expect(memory.total == 24_683_652 * 1024)
        #expect(memory.available == 24_469_076 * 1024)
    }

    @Test func estimatesAvailableMemoryOnOldKernels() {
        let text = "MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 20 kB\nCached: 300 kB\nSwapCached: 5 kB\n"
        let memory = HostSnapshot.parseMemInfo(text)
        #expect(memory.total == 1000 * 1024)
        #expect(memory.available == 420 * 1024)
    }

    @Test func memInfoToleratesOddValues() {
        let text = """
            MemTotal:99999999999999999999999 kB
            MemTotal:\t  2048 KB   
            MemAvailable: -5 kB
            MemAvailable: twelve kB
            MemAvailable: 9223372036854775 kB
            MemAvailable
            : 7 kB
            """
        let memory = HostSnapshot.parseMemInfo(text)
        #expect(memory.total == 2048 * 1024)
        // Too large to express in bytes, so treated like any other unreadable value.
        #expect(memory.available == 0)

        let unitless = HostSnapshot.parseMemInfo("MemTotal: 512\nMemAvailable: 256\n")
        #expect(unitless.total == 512)
        #expect(unitless.available == 256)
    }

    // MARK: cpuinfo

    @Test func parsesX86CPUInfo() {
        let text = """
            processor\t: 0
            vendor_id\t: AuthenticAMD
            model name\t: AMD EPYC 7B13 64-Core Processor   
            flags\t\t: fpu vme de pse

            processor\t: 1
            model name\t: Something Else
            """
        #expect(HostSnapshot.parseCPUModel(text) == "AMD EPYC 7B13 64-Core Processor")
    }

    @Test(arguments: [
        ("Processor\t: ARMv7 Processor rev 4 (v7l)\nprocessor\t: 0\nHardware\t: BCM2835\n", "ARMv7 Processor rev 4 (v7l)"),
        ("processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\n", "POWER9 (raw), altivec supported"),
        ("system type\t: MT7621\nprocessor\t: 0\ncpu model\t: MIPS 1004Kc V2.15\n", "MIPS 1004Kc V2.15"),
        ("processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n", "ARM Neoverse-N1"),
        ("processor\t: 0\nCPU implementer\t: 0xC0\nCPU part\t: 0xac3\n", "Ampere part 0xac3"),
        ("processor\t: 0\nCPU implementer\t: 0x99\nCPU part\t: 0x001\n", "implementer 0x99 part 0x001"),
    ])
    func parsesOtherArchitecturesCPUInfo(text: String, expected: String) {
        #expect(HostSnapshot.parseCPUModel(text) == expected)
    }

    @Test func cpuInfoWithoutAModelIsEmpty() {
        #expect(HostSnapshot.parseCPUModel("processor\t: 0\nmodel name\t:   \n") == "")
        #expect(HostSnapshot.parseCPUModel("") == "")
    }

    // MARK: Small files

    @Test func parsesUptimeAndResidentPages() {
        #expect(HostSnapshot.parseUptime("350735.47 234388.90\n") == 350_735.47)
        #expect(HostSnapshot.parseUptime("  12.5") == 12.5)
        #expect(HostSnapshot.parseUptime("nan 1") == 0)
        #expect(HostSnapshot.parseUptime("-3 1") == 0)
        #expect(HostSnapshot.parseUptime("") == 0)

        #expect(AppSnapshot.parseResidentPages("765 413 385 5 0 123 0\n") == 413)
        #expect(AppSnapshot.parseResidentPages("765") == 0)
        #expect(AppSnapshot.parseResidentPages("1 -2 3") == 0)
    }

    @Test func trimsWhitespaceAndNULs() {
        #expect(HostSnapshot.trimmed("  PowerEdge R650 \n") == "PowerEdge R650")
        #expect(HostSnapshot.trimmed("Raspberry Pi 4 Model B\0") == "Raspberry Pi 4 Model B")
        #expect(HostSnapshot.trimmed(" \t\n\0") == "")
    }

    // MARK: Garbage

    static let garbage: [String] = {
        var generator = SeededRandom(seed: 0x5EED)
        var inputs = [
            "", "\n\n\n", ":", "=", "==\"", "\"", "\\", ": : :", "MemTotal:", "MemTotal: kB",
            "model name", "model name:", "NAME=\"\\", "\u{0}\u{0}\u{0}", "é:ü=ß\r\n\r\n",
            "CPU implementer: 0x41", String(repeating: "x", count: 10_000),
        ]
        for length in [1, 7, 64, 500, 4096] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            inputs.append(String(decoding: bytes, as: UTF8.self))
        }
        return inputs
    }()

    // One test looping over the inputs rather than a parameterized one: the inputs are
    // long binary noise that would flood the test log as argument descriptions.
    @Test func parsersSurviveGarbage() {
        for text in Self.garbage {
            _ = HostSnapshot.parseOSRelease(text)
            _ = HostSnapshot.parseCPUModel(text)
            _ = HostSnapshot.trimmed(text)
            _ = AppSnapshot.parseResidentPages(text)

            let memory = HostSnapshot.parseMemInfo(text)
            #expect(memory.total >= 0)
            #expect(memory.available >= 0)
            #expect(HostSnapshot.parseUptime(text) >= 0)
        }
    }

    @Test func invalidUTF8IsRepairedNotRejected() {
        var bytes = Array("NAME=\"Deb".utf8)
        bytes += [0xFF, 0xC3]
        bytes += Array("ian\"\nVERSION_ID=12\n".utf8)
        let os = HostSnapshot.parseOSRelease(String(decoding: bytes, as: UTF8.self))
        #expect(os.name.hasPrefix("Deb"))
        #expect(os.name.hasSuffix("ian"))
        #expect(os.version == "12")
    }

    // MARK: Comparing sessions

    static let bookworm = HostSnapshot(
        hostname: "web-1",
        osName: "Debian GNU/Linux",
        osVersion: "12",
        osPrettyName: "Debian GNU/Linux 12 (bookworm)",
        kernelVersion: "6.1.0-17-amd64",
        architecture: "x86_64",
        productName: "PowerEdge R650",
        vendor: "Dell Inc.",
        cpuModel: "Intel(R) Xeon(R) Gold 6338",
        cpuCount: 64,
        memoryTotal: 256 << 30,
        memoryAvailable: 200 << 30,
        diskTotal: 2 << 40,
        diskFree: 1 << 40,
        uptime: 86_400.5,
        networkInterfaces: [
            .init(name: "eno1", addresses: ["10.0.0.5", "fe80::1"]),
            .init(name: "lo", addresses: ["127.0.0.1", "::1"]),
        ]
    )

    @Test func identicalHostsHaveNoChanges() {
        #expect(Self.bookworm.changes(since: Self.bookworm).isEmpty)

        // Figures that move between any two sessions are not worth reporting.
        var later = Self.bookworm
        later.memoryAvailable /= 2
        later.diskFree /= 2
        later.uptime += 3600
        later.networkInterfaces = []
        #expect(later.changes(since: Self.bookworm).isEmpty)
    }

    @Test func reportsOSAndKernelChanges() {
        var trixie = Self.bookworm
        trixie.osVersion = "13"
        trixie.osPrettyName = "Debian GNU/Linux 13 (trixie)"
        trixie.kernelVersion = "6.12.9-amd64"

        #expect(trixie.changes(since: Self.bookworm) == [
            "OS changed from Debian GNU/Linux 12 (bookworm) to Debian GNU/Linux 13 (trixie)",
            "Kernel changed from 6.1.0-17-amd64 to 6.12.9-amd64",
        ])
    }

    @Test func reportsAKernelChangeAlone() {
        var patched = Self.bookworm
        patched.kernelVersion = "6.1.0-18-amd64"
        #expect(patched.changes(since: Self.bookworm) == ["Kernel changed from 6.1.0-17-amd64 to 6.1.0-18-amd64"])
    }

    @Test func osChangeUsesPlainNamesWhenPrettyNamesMatch() {
        var previous = Self.bookworm
        previous.osPrettyName = "Acme Linux"
        var current = previous
        current.osVersion = "13"
        #expect(current.changes(since: previous) == ["OS changed from Debian GNU/Linux 12 to Debian GNU/Linux 13"])
    }

    @Test func unreadableFieldsAreNotChanges() {
        let blank = HostSnapshot(hostname: "web-1")
        #expect(blank.changes(since: Self.bookworm).isEmpty)
        #expect(Self.bookworm.changes(since: blank).isEmpty)
    }

    // MARK: Codable

    @Test func hostSnapshotSurvivesAJSONRoundTrip() throws {
        var withoutDMI = Self.bookworm
        withoutDMI.productName = nil
        withoutDMI.vendor = nil
        for original in [Self.bookworm, withoutDMI, HostSnapshot()] {
            let data = try JSONEncoder().encode(original)
            #expect(try JSONDecoder().decode(HostSnapshot.self, from: data) == original)
        }

        let live = HostSnapshot.current(volume: FileManager.default.temporaryDirectory)
        #expect(try JSONDecoder().decode(HostSnapshot.self, from: JSONEncoder().encode(live)) == live)
    }

    @Test func appSnapshotSurvivesAJSONRoundTrip() throws {
        let apps = [
            AppSnapshot(name: "api", version: "1.2.3", pid: 4242, arguments: ["/usr/bin/api", "--port", "80"], residentMemory: 50 << 20),
            AppSnapshot(name: "worker", pid: 1),
            AppSnapshot.current(version: nil),
        ]
        for original in apps {
            let data = try JSONEncoder().encode(original)
            #expect(try JSONDecoder().decode(AppSnapshot.self, from: data) == original)
        }
    }
}
