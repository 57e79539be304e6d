import Foundation
@testable import LogStoreCLI

/// What one in-process `logstore` run gave: its exit status and both streams.
struct CLIRun {
    var status: Int32
    var output: String
    var error: String

    /// The output's lines, without their newlines.
    var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// Runs `logstore arguments` through ``LogStoreCommand/run(_:output:error:environment:)`` at
    /// `now`; with `progress`, as on a terminal whose stderr collects the progress bars there.
    static func run(_ arguments: [String], now: Date, progress: Recorder<String>? = nil) async -> CLIRun {
        var output = ""
        var error = ""
        var environment = CommandEnvironment(now: now)
        if let progress {
            environment.progressOutput = { text in progress.update { $0 += text } }
        }
        let status = await LogStoreCommand.run(arguments, output: &output, error: &error, environment: environment)
        return CLIRun(status: status, output: output, error: error)
    }
}
