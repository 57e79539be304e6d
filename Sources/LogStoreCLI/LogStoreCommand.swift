import Foundation
import Glibc
import LogStore

/// The `logstore` command: look into a store from a shell.
///
/// ```swift
/// var output = ""
/// var errors = ""
/// let status = await LogStoreCommand.run(["info", "/var/log/app.logstore", "--json"],
///                                        output: &output, error: &errors)
/// ```
///
/// Exit statuses (``ExitStatus``): 0 on success, 1 when the work failed, 64 (`EX_USAGE`) for an
/// unknown command or option or a malformed value, 66 (`EX_NOINPUT`) when the store, archive or
/// task named, or the directory of the file to write, does not exist, 75 (`EX_TEMPFAIL`) when another process holds the store busy.
public enum LogStoreCommand {
    /// Runs the command line in `arguments` (without the program name).
    ///
    /// The global options `--color`, `--no-color` and `--utc` may stand before the command name
    /// or among its options (never in an option's value slot, nor after a `--`); they override
    /// what `environment` says.
    ///
    /// - Parameters:
    ///   - arguments: for example `["messages", "app.logstore", "--level", "warning"]`.
    ///   - output: receives the results (written in chunks as they come).
    ///   - error: receives errors and usage messages.
    ///   - environment: colours, width, time zone and the clock; default none, no clipping,
    ///     UTC and the real clock.
    /// - Returns: the exit status.
    public static func run<Output: TextOutputStream, ErrorOutput: TextOutputStream>(
        _ arguments: [String],
        output: inout Output,
        error: inout ErrorOutput,
        environment: CommandEnvironment = CommandEnvironment()
    ) async -> Int32 {
        let (leading, arguments) = GlobalOptions.leading(arguments)
        var console = Console(output: output, errorOutput: error, environment: leading.applied(to: environment))
        let status = await run(arguments, leading: leading, environment: environment, console: &console)
        console.flush()
        // The console wrote to copies of the streams; hand the written streams back (this matters
        // for value types such as `String`).
        if let written = console.output as? Output { output = written }
        if let written = console.errorOutput as? ErrorOutput { error = written }
        return status
    }

    /// Runs the process's own command line on standard output and standard error, then exits
    /// with the status. The whole of the `logstore` executable.
    public static func main() async -> Never {
        var output = StandardStream.output
        var error = StandardStream.error
        let status = await run(
            Array(CommandLine.arguments.dropFirst()), output: &output, error: &error, environment: .current)
        exit(status)
    }

    /// Every subcommand, in the order `--help` lists them.
    static let commands: [any Command.Type] = [
        DemoCommand.self, InfoCommand.self, MessagesCommand.self, SessionsCommand.self, TasksCommand.self,
        TaskCommand.self, BlobsCommand.self, SweepCommand.self,
        SummaryCommand.self,
        TailCommand.self,
        OpenCommand.self,
        ExportCommand.self,
        HistoryCommand.self,
        ServeCommand.self,
        ShipCommand.self,
    ]

    static let usageStatus = ExitStatus.usage

    /// - Parameters:
    ///   - leading: the global options before the command name.
    ///   - environment: the caller's, which the command's global options apply to.
    private static func run(
        _ arguments: [String], leading: GlobalOptions, environment: CommandEnvironment, console: inout Console
    ) async -> Int32 {
        guard let first = arguments.first else {
            console.errorLine(help)
            return usageStatus
        }
        switch first {
        case "-h", "--help":
            console.line(help)
            return 0
        case "help":
            return helpCommand(Array(arguments.dropFirst()), console: &console)
        case "--version":
            console.line("logstore \(LogStore.Version.library)")
            return 0
        default:
            break
        }
        guard let command = commands.first(where: { $0.spec.name == first }) else {
            let kind = first.hasPrefix("-") ? "option" : "command"
            var message = "unknown \(kind) '\(first)'"
            if let near = Suggestion.nearest(first, among: commands.map { $0.spec.name }) { message += "; did you mean '\(near)'?" }
            return usage(UsageError(message: message), console: &console)
        }
        return await run(command, Array(arguments.dropFirst()), leading: leading, environment: environment, console: &console)
    }

    private static func run(
        _ command: any Command.Type, _ arguments: [String], leading: GlobalOptions, environment: CommandEnvironment,
        console: inout Console
    ) async -> Int32 {
        var storePath: String?
        do {
            switch try ArgumentParser.parse(arguments, for: command.spec) {
            case .help:
                console.line(command.spec.help)
                return 0
            case .arguments(let parsed):
                storePath = parsed.positionals.first
                console.use(parsed.global.after(leading).applied(to: environment))
                try await command.run(parsed, console: &console)
                return 0
            }
        } catch var error as UsageError {
            error.command = error.command ?? command.spec.name
            return usage(error, console: &console)
        } catch {
            let failure = Failure(error, storePath: storePath)
            console.errorLine("logstore: \(oneLine(failure.message))")
            return failure.status
        }
    }

    private static func helpCommand(_ arguments: [String], console: inout Console) -> Int32 {
        guard let name = arguments.first else {
            console.line(help)
            return 0
        }
        guard let command = commands.first(where: { $0.spec.name == name }) else {
            return usage(UsageError(message: "unknown command '\(name)'"), console: &console)
        }
        console.line(command.spec.help)
        return 0
    }

    private static func usage(_ error: UsageError, console: inout Console) -> Int32 {
        console.errorLine("logstore: \(error.message)")
        if let name = error.command, let command = commands.first(where: { $0.spec.name == name }) {
            console.errorLine("Usage: \(command.spec.usage)")
            console.errorLine("Run 'logstore \(name) --help' for its options.")
        } else {
            console.errorLine("Run 'logstore --help' for the commands.")
        }
        return usageStatus
    }

    /// The top-level help: every command with its summary, the global options and the exit
    /// statuses.
    static var help: String {
        var lines = [
            "logstore: look into a LogStore store (a *.logstore directory) or archive (*.lsarchive).", "",
            "Usage: logstore <command> <store> [options]", "", "Commands:",
        ]
        lines += CommandSpec.table(commands.map { ($0.spec.name, $0.spec.summary) })
        lines += ["", "Global options (before the command or among its options):"]
        lines += CommandSpec.table(GlobalOptions.help + [("-h, --help", "Show this help."), ("--version", "Print the version.")])
        lines += ["", "Exit statuses:"]
        lines += CommandSpec.table(ExitStatus.all.map { (String($0.code), $0.meaning) })
        lines += [
            "", "Run 'logstore help <command>' (or 'logstore <command> --help') for a command's options and examples.",
            "Start with: logstore demo demo.logstore && logstore info demo.logstore",
            "Then:       logstore messages demo.logstore --level warning --since 1h",
            "            logstore tasks demo.logstore --status 5xx",
        ]
        return lines.joined(separator: "\n")
    }

    /// Errors go on one line, whatever their description holds.
    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
