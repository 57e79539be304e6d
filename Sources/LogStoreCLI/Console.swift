/// Where a command writes: its standard output (buffered, flushed in large chunks and before
/// anything goes to the error stream, so the two stay in order on a terminal) and its errors.
struct Console {
    private(set) var output: any TextOutputStream
    private(set) var errorOutput: any TextOutputStream
    private var pending = ""
    /// Colours, when the environment allows them.
    private(set) var style: TextStyle
    private(set) var environment: CommandEnvironment

    private static let flushThreshold = 64 * 1024

    init(output: any TextOutputStream, errorOutput: any TextOutputStream, environment: CommandEnvironment) {
        self.output = output
        self.errorOutput = errorOutput
        self.environment = environment
        self.style = TextStyle(enabled: environment.usesColors, timeZone: environment.timeZone)
        pending.reserveCapacity(Self.flushThreshold + 1024)
    }

    /// Switches to `environment` (the command's global options read): what is written from now
    /// on follows its colours and zone.
    mutating func use(_ environment: CommandEnvironment) {
        self.environment = environment
        style = TextStyle(enabled: environment.usesColors, timeZone: environment.timeZone)
    }

    /// Writes one line (a newline is added) to standard output.
    mutating func line(_ text: String = "") {
        pending += text
        pending += "\n"
        if pending.utf8.count >= Self.flushThreshold { flush() }
    }

    /// Writes one line to the error stream, after what is already on standard output.
    mutating func errorLine(_ text: String) {
        flush()
        errorOutput.write(text + "\n")
    }

    /// Hands buffered output to the stream.
    mutating func flush() {
        guard !pending.isEmpty else { return }
        output.write(pending)
        pending.removeAll(keepingCapacity: true)
    }
}
