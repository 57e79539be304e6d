import Foundation
import Testing

@testable import LogStore

@Suite("URL filter")
struct URLFilterTests {
    private func url(_ string: String) -> URL? { URL(string: string) }

    @Test func emptyFilterAllowsEverything() {
        #expect(URLFilter().allows(url("https://example.com/a")))
        #expect(URLFilter.all.allows(nil))
        #expect(URLFilter() == URLFilter.all)
    }

    @Test func hostWildcards() throws {
        let filter = try URLFilter(includedHosts: ["*.example.com", "api-v?.test.org"])
        #expect(filter.allows(url("https://api.example.com/x")))
        #expect(filter.allows(url("https://a.b.example.com/x")))
        #expect(!filter.allows(url("https://example.com/x")))
        #expect(!filter.allows(url("https://example.com.evil.net/x")))
        #expect(filter.allows(url("https://api-v2.test.org")))
        #expect(!filter.allows(url("https://api-v10.test.org")))
        #expect(!filter.allows(nil))
    }

    @Test func hostsIgnoreCase() throws {
        let filter = try URLFilter(excludedHosts: ["*.Internal.CORP", .regex("^METRICS\\.")])
        #expect(!filter.allows(url("https://db.internal.corp/")))
        #expect(!filter.allows(url("https://DB.INTERNAL.corp/")))
        #expect(!filter.allows(url("https://metrics.example.com/")))
        #expect(filter.allows(url("https://example.com/")))
    }

    @Test func urlWildcardsMatchTheWholeURLAndAreCaseSensitive() throws {
        let filter = try URLFilter(includedURLs: ["https://example.com/api/*", "*/v?/users"])
        #expect(filter.allows(url("https://example.com/api/users?page=2")))
        #expect(!filter.allows(url("https://example.com/API/users")))
        #expect(!filter.allows(url("http://example.com/api/users")))
        #expect(filter.allows(url("http://other.net/v1/users")))
        #expect(!filter.allows(url("http://other.net/v1/users/1")))
    }

    /// Found by fuzzing (Fixtures/fuzz/urlfilter/): a `*` in the URL was taken as matching the
    /// pattern's `*` literally, so `https://api.example.com/*/secrets` escaped the exclusion.
    @Test func aStarInTheURLDoesNotEscapeAWildcard() throws {
        let filter = try URLFilter(excludedURLs: ["https://api.example.com/*"])
        #expect(!filter.allows(url("https://api.example.com/*/secrets")))
        #expect(!filter.allows(url("https://api.example.com/a*b/c")))
        let hosts = try URLFilter(includedURLs: ["*/v?/*"])
        #expect(hosts.allows(url("https://x.test/*/v1/users")))
    }

    @Test func excludeWinsOverInclude() throws {
        let filter = try URLFilter(
            includedHosts: ["*.example.com"], excludedHosts: ["ads.example.com"],
            excludedURLs: ["*/health"])
        #expect(filter.allows(url("https://api.example.com/users")))
        #expect(!filter.allows(url("https://ads.example.com/users")))
        #expect(!filter.allows(url("https://api.example.com/health")))
        #expect(!filter.allows(url("https://other.net/users")))
    }

    @Test func includedHostsAndURLsAreEitherOr() throws {
        let filter = try URLFilter(includedHosts: ["a.com"], includedURLs: ["https://b.com/*"])
        #expect(filter.allows(url("https://a.com/x")))
        #expect(filter.allows(url("https://b.com/x")))
        #expect(!filter.allows(url("https://c.com/x")))
    }

    @Test func regexPatternsSearchAnywhere() throws {
        let filter = try URLFilter(excludedURLs: [.regex(#"/v[0-9]+/internal"#), .regex("(?i)SECRET")])
        #expect(!filter.allows(url("https://example.com/v12/internal/x")))
        #expect(!filter.allows(url("https://example.com/a/secret")))
        #expect(filter.allows(url("https://example.com/v/internal")))
    }

    @Test func wildcardsDoNotTreatRegexCharactersSpecially() throws {
        let filter = try URLFilter(includedURLs: ["https://example.com/a.b(c)+*"])
        #expect(filter.allows(url("https://example.com/a.b(c)+/x")))
        #expect(!filter.allows(url("https://example.com/aXb(c)+/x")))
    }

    @Test func pathologicalWildcardsStayFast() throws {
        let pattern = String(repeating: "*a", count: 50) + "b"
        let filter = try URLFilter(includedURLs: [.wildcard(pattern)])
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(!filter.allows(url("https://x/" + String(repeating: "a", count: 5000))))
        }
        // Backtracking would take ages, not seconds; the bound leaves room for a saturated run.
        #expect(elapsed < .seconds(TimeScale.scaled(10)))
    }

    @Test func invalidRegexIsATypedError() {
        #expect(throws: URLFilter.InvalidPatternError.self) {
            try URLFilter(includedURLs: [.regex("([unclosed")])
        }
        do {
            _ = try URLFilter(excludedHosts: ["ok.com", .regex("a(")])
            Issue.record("expected an error")
        } catch {
            #expect(error.pattern == .regex("a("))
            #expect(!error.reason.isEmpty)
            #expect(error.description.contains("a("))
        }
    }

    @Test func filtersCompareByPatterns() throws {
        #expect(try URLFilter(includedHosts: ["a.com"]) == URLFilter(includedHosts: ["a.com"]))
        #expect(try URLFilter(includedHosts: ["a.com"]) != URLFilter(excludedHosts: ["a.com"]))
        #expect(URLPattern.wildcard("x") == "x")
    }
}
