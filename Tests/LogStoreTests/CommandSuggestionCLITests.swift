import Testing
@testable import LogStoreCLI

/// "Did you mean …?" for a mistyped command or option, swapped letters included.
@Suite struct CommandSuggestionCLITests: CLITestCase {
    @Test func swappedLettersSuggestTheCommand() async {
        let run = await logstore("tial", "/tmp/x.logstore")
        #expect(run.status == ExitStatus.usage)
        #expect(run.error.hasPrefix("logstore: unknown command 'tial'; did you mean 'tail'?"), "\(run.error)")
        #expect(await logstore("mesages").error.contains("did you mean 'messages'?"))
        #expect(await logstore("--jsno").error.contains("unknown option") == true)
        #expect(await logstore("messages", "/tmp/x", "--jsno").error.contains("did you mean '--json'?"))
    }

    /// Every command, each pair of neighbours swapped, and one letter left out: each is
    /// suggested back, or a command just as near (`taks` is one edit from `task` and from `tasks`).
    @Test(arguments: LogStoreCommand.commands.map { $0.spec.name })
    func everyCommandIsSuggestedForItsTypos(_ name: String) async {
        let letters = Array(name)
        var typos: [String] = []
        for index in letters.indices.dropLast() where letters[index] != letters[index + 1] {
            var swapped = letters
            swapped.swapAt(index, index + 1)
            typos.append(String(swapped))
        }
        for index in letters.indices {
            var dropped = letters
            dropped.remove(at: index)
            typos.append(String(dropped))
        }
        for typo in typos where !LogStoreCommand.commands.contains(where: { $0.spec.name == typo }) {
            let suggested = Suggestion.nearest(typo, among: LogStoreCommand.commands.map { $0.spec.name })
            let distance = { (candidate: String) in Suggestion.editDistance(Array(typo), Array(candidate)) }
            #expect(suggested == name || suggested.map(distance) == distance(name), "\(typo) → \(suggested ?? "nothing")")
        }
    }

    @Test func distancesCountASwapAsOneEdit() {
        #expect(Suggestion.editDistance(Array("tial"), Array("tail")) == 1)
        #expect(Suggestion.editDistance(Array("abc"), Array("abc")) == 0)
        #expect(Suggestion.editDistance(Array("kitten"), Array("sitting")) == 3)
        #expect(Suggestion.editDistance(Array(""), Array("ab")) == 2)
        #expect(Suggestion.editDistance(Array("ab"), Array("")) == 2)
        #expect(Suggestion.nearest("info", among: ["tail"]) == nil)
    }
}
