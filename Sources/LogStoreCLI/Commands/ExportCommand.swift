import Foundation
import LogStore

/// `logstore export <store> -o <file> [--format …] [filters]`: writes what the filters select to
/// one file, with a progress bar on a terminal and one summary line at the end.
enum ExportCommand: Command {
    static let spec = CommandSpec(
        name: "export",
        summary: "Export messages and network tasks to an archive, text, NDJSON, HTML or HAR file.",
        positionals: [.init(name: "store", help: "The store directory, or an archive (.lsarchive) file.")],
        options: [output, force, format, session, since, until, level, label, grep, noTasks, noMessages, details],
        discussion: """
            The format follows the extension: .lsarchive archive, .log or .txt text, .ndjson or
            .jsonl NDJSON, .html HTML, .har HAR; any other is an archive unless --format says.
            --level, --label and --grep select messages; --session, --since and --until select
            messages and tasks. The file is written beside its name and put in place only when
            complete. An existing file is left alone unless --force, which swaps the new file in
            for it in one step (rename): never half a file, and the old one stays if the export fails.
            Times: a time ago (90s, 15m, 2h, 3d, 1w), now, today, yesterday, or 2026-12-01,
            2026-12-01T10:00[:30] with Z or +02:00 (local time without; UTC with --utc).

            Examples:
              logstore export app.logstore -o incident.lsarchive --since 2h
              logstore export app.logstore -o errors.log --level error --details
              logstore export app.logstore -o api.har --no-messages
              logstore export app.logstore -o incident.html --since 1h --force
            """)

    static let output = ValueOption("output", "file", "The file to write (required); it must not exist, unless --force.", short: "o")
    static let force = FlagOption("force", "Replace the output file if it exists (atomically, once the new one is complete).")
    static let format = ValueOption("format", "format", "archive, text, ndjson, html or har (default: from the file's extension).")
    static let session = RepeatableOption("session", "id", "Only this session (see 'logstore sessions'); repeat for several.")
    static let since = ValueOption("since", "time", "Only messages and tasks at or after this time.")
    static let until = ValueOption("until", "time", "Only messages and tasks before this time.")
    static let level = ValueOption(
        "level", "level", "Only messages of this level and above (warning), or a range (info...error).")
    static let label = RepeatableOption("label", "label", "Only messages with this label; repeat for several.")
    static let grep = ValueOption("grep", "text", "Only messages with these words (full-text search).")
    static let noTasks = FlagOption("no-tasks", "Leave the network tasks out.")
    static let noMessages = FlagOption("no-messages", "Leave the messages out.")
    static let details = FlagOption("details", "Text only: each task's request and response headers beneath it.")

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        guard let path = arguments.value(output) else {
            throw UsageError(message: "missing --output <file> (-o): the file to write")
        }
        let url = URL(fileURLWithPath: path)
        let format = try format(arguments, url: url)
        let options = try options(arguments, now: console.environment.currentDate, timeZone: console.environment.timeZone)
        try checkDirectory(of: url)
        try checkTarget(url, path: path, replacing: options.replacesExistingFile)
        let bar = console.environment.progressOutput.map { ProgressBar(output: $0) }
        let unit = format == .archive ? "bytes" : "rows"
        var callback: (@Sendable (ExportProgress) -> Void)?
        if let bar { callback = { progress in bar.draw(progress, unit: unit) } }
        let report: ExportReport
        do {
            report = try await StoreAccess.withReadonlyStore(arguments.positionals[0]) { store in
                try await store.export(to: url, format: format, options: options, progress: callback)
            }
        } catch let error as LogStoreError where error.kind == .fileAlreadyExists && error.url?.path == url.standardizedFileURL.path {
            // Taken while the export ran (the check above passed).
            bar?.finish()
            throw alreadyExists(path)
        } catch {
            bar?.finish()
            throw error
        }
        bar?.finish()
        console.line(summary(report, path: path))
    }

    /// Fails before any work when the output's directory is missing: the export would only fail
    /// at its end, and the library's error speaks of a store. Not found (66), as a missing store
    /// is: something the command line names is not there.
    static func checkDirectory(of output: URL) throws(CommandFailure) {
        let directory = output.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure(
                description: "no directory \(Format.escaped(directory.path)) for the output file — create it first "
                    + "(mkdir -p \(Format.escaped(Format.shellQuoted(directory.path))))",
                status: ExitStatus.notFound)
        }
    }

    /// Fails before any work when the output is taken: by a directory (never replaced), or by a
    /// file without `--force`. The library checks again (and at the end); this says what to do.
    static func checkTarget(_ output: URL, path: String, replacing: Bool) throws(CommandFailure) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: output.path, isDirectory: &isDirectory) else { return }
        if isDirectory.boolValue {
            throw CommandFailure(description: "\(Format.escaped(path)) is a directory: give -o a file name")
        }
        if !replacing { throw alreadyExists(path) }
    }

    static func alreadyExists(_ path: String) -> CommandFailure {
        CommandFailure(description: "\(Format.escaped(path)) already exists: pass --force to replace it, or choose another -o")
    }

    /// `--format`, else the extension's format, else an archive.
    static func format(_ arguments: ParsedArguments, url: URL) throws(UsageError) -> ExportFormat {
        if let name = arguments.value(Self.format) {
            guard let format = ExportFormat(rawValue: name.lowercased()) else {
                let names = ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")
                throw UsageError(message: "invalid value '\(name)' for --format: expected \(names)")
            }
            return format
        }
        switch url.pathExtension.lowercased() {
        case "log", "txt": return .text
        case "ndjson", "jsonl": return .ndjson
        case "html", "htm": return .html
        case "har": return .har
        default: return .archive
        }
    }

    /// The filters as ``ExportOptions``.
    static func options(_ arguments: ParsedArguments, now: Date, timeZone: TimeZone = CommandEnvironment.utc) throws(UsageError) -> ExportOptions {
        var options = ExportOptions(includesTaskDetails: arguments.flag(details), replacesExistingFile: arguments.flag(force))
        for text in arguments.all(session) {
            options.sessions.append(try ValueParsers.uuid(text, option: session.name))
        }
        if let text = arguments.value(since) {
            options.since = try ValueParsers.date(text, option: since.name, now: now, timeZone: timeZone)
        }
        if let text = arguments.value(until) {
            options.until = try ValueParsers.date(text, option: until.name, now: now, timeZone: timeZone)
        }
        try WindowFilters.checkRange(since: options.since, until: options.until, arguments: arguments, since, until)
        var messages = MessageQuery(labels: arguments.all(label))
        if let text = arguments.value(level) {
            messages.levels = try ValueParsers.levels(text)
        }
        if let text = arguments.value(grep) {
            messages.text = .plain(text)
        }
        options.messages = arguments.flag(noMessages) ? nil : messages
        options.tasks = arguments.flag(noTasks) ? nil : TaskQuery()
        return options
    }

    /// `Exported 1,234 messages, 56 tasks (2 sessions) to out.log (text): 1.2 MB in 0.42 s`.
    static func summary(_ report: ExportReport, path: String) -> String {
        let seconds = Double(report.duration.components.seconds) + Double(report.duration.components.attoseconds) / 1e18
        return "Exported \(Format.plural(report.messageCount, "message")), \(Format.plural(report.taskCount, "task"))"
            + " (\(Format.plural(report.sessionCount, "session"))) to \(Format.escaped(path)) (\(report.format.rawValue)):"
            + " \(Format.bytes(report.byteCount)) in \(Format.decimal(seconds, places: 2)) s"
    }
}
