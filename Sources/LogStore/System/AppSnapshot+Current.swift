import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension AppSnapshot {
    /// Describes the running process (its name, pid, arguments and resident memory now);
    /// `version` is whatever the app configured, if anything.
    public static func current(version: String?) -> AppSnapshot {
        let info = ProcessInfo.processInfo
        let arguments = info.arguments
        var name = arguments.first.flatMap { $0.split(separator: "/").last.map(String.init) } ?? ""
        if name.isEmpty { name = info.processName }

        var resident: Int64 = 0
        if let text = HostSnapshot.readText("/proc/self/statm", limit: 1024) {
            let pageSize = Int64(max(0, sysconf(Int32(_SC_PAGESIZE))))
            let (bytes, overflow) = parseResidentPages(text).multipliedReportingOverflow(by: pageSize)
            resident = overflow ? Int64.max : bytes
        }

        return AppSnapshot(
            name: name,
            version: version,
            pid: getpid(),
            arguments: arguments,
            residentMemory: resident
        )
    }

    /// Parses `/proc/self/statm`, whose second field is the resident set size in pages.
    static func parseResidentPages(_ text: String) -> Int64 {
        let fields = text.split(whereSeparator: { $0.isWhitespace })
        guard fields.count > 1, let pages = Int64(fields[1]), pages >= 0 else { return 0 }
        return pages
    }
}
