import LogStore
import Testing

/// `LogStore.Level.range(parsing:)`: what `level=` and `--level` mean, read the same way by the
/// CLI, the console's API and (in script) the exported page.
@Suite struct LevelRangeParsingTests {
    @Test func oneLevelMeansThatLevelAndAboveHoweverThePlusArrives() throws {
        // `warning+` as typed, as a query delivers a bare `+` (a space) and `%2B` (a `+`).
        for text in ["warning", "warning+", "warning ", "warning++", " Warning + ", "WARN", "warn+"] {
            #expect(try LogStore.Level.range(parsing: text) == .warning ... .critical, "\(text)")
        }
        #expect(try LogStore.Level.range(parsing: "trace") == .trace ... .critical)
        #expect(try LogStore.Level.range(parsing: "critical") == .critical ... .critical)
    }

    @Test func twoLevelsMakeARange() throws {
        #expect(try LogStore.Level.range(parsing: "info...error") == .info ... .error)
        #expect(try LogStore.Level.range(parsing: "warning...warning") == .warning ... .warning)
        #expect(try LogStore.Level.range(parsing: "info ... error+") == .info ... .error)
        #expect(try LogStore.Level.range(parsing: "debug...critical") == .debug ... .critical)
    }

    @Test func anythingElseIsAnInvalidArgumentThatSaysWhy() {
        for (text, words) in [
            ("loud", "no level is called loud"), ("", "no level is called ''"), ("+", "no level is called ''"),
            ("info...loud", "no level is called loud"), ("info..error", "no level is called info..error"),
            ("info...error...critical", "no level is called error...critical"),
            ("error...info", "the first level (error) must not be above the second (info)"),
        ] {
            let error = #expect(throws: LogStoreError.self, "\(text)") { try LogStore.Level.range(parsing: text) }
            #expect(error?.kind == .invalidArgument, "\(text)")
            #expect(error?.reason?.contains(words) == true, "\(text): \(error?.reason ?? "")")
        }
        // The forms accepted are named with a name that is not a level.
        let error = #expect(throws: LogStoreError.self) { try LogStore.Level.range(parsing: "loud") }
        #expect(error?.reason?.contains("trace, debug, info, notice, warning, error, critical") == true)
        #expect(error?.reason?.contains("a range such as info...error") == true)
    }
}
