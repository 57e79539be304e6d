import Foundation

@testable import LogStoreCLI

/// The fuzz target over what the command line reads (`Scripts/fuzz.sh cli`, replayed by
/// `FuzzRegressionTests`): the time parser and the argument parser. Test code, like `FuzzEntry`:
/// `Scripts/fuzz.sh` compiles this file into the `cli` target, against an `-enable-testing` build.
enum CLIFuzzEntry {
    /// The input's first line is a time (`--since`), in UTC and in a zone with a half-hour offset;
    /// the rest, split at newlines, is a command line, parsed against every command's spec. Returns
    /// a finding, or `nil`: each parser must accept or refuse without trapping, and a time it
    /// accepts must be a finite date.
    static func timeAndArguments(_ data: Data) -> String? {
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let time = lines.first ?? ""
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for zone in [CommandEnvironment.utc, TimeZone(secondsFromGMT: -(9 * 3600 + 1800)) ?? CommandEnvironment.utc] {
            if let date = try? TimeParser.date(time, now: now, timeZone: zone), !date.timeIntervalSince1970.isFinite {
                return "\(time.debugDescription) parses to a date that is not finite"
            }
        }
        let arguments = Array(lines.dropFirst())
        for command in LogStoreCommand.commands {
            _ = try? ArgumentParser.parse(arguments, for: command.spec)
        }
        return nil
    }
}
