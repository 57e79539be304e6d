import Foundation
import LogStore
import Testing
@testable import LogStoreCLI

/// `logstore task`: one task with its redacted headers, bodies and timings.
@Suite struct TaskCLITests: CLITestCase {
    @Test func taskShowsRedactedHeadersPrettyJSONAndTimings() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url)
            let all = try await allTasks(url)
            // The first task is a catalog page fetched with a bearer token.
            let first = try #require(all.first?["id"] as? String)
            let run = await logstore("task", url.path, first)
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.hasPrefix("GET https://catalog.shop.internal/v1/products?page="))
            #expect(run.lines.contains("  Authorization: <private>"))
            #expect(!run.output.contains("Bearer"))
            #expect(run.lines.contains("  {"))
            #expect(run.lines.contains { $0.hasPrefix("    \"page\": ") })
            #expect(run.lines.contains("    \"items\": ["))
            #expect(run.output.contains("Response  200 OK"))
            #expect(run.output.contains("Transaction 1 of 1: network load, h2"))
            #expect(run.lines.contains { $0.hasPrefix("    Waiting ") && $0.hasSuffix(" ms") })
            #expect(run.output.contains("--full prints all"))
            let full = await logstore("task", url.path, first, "--full")
            #expect(!full.output.contains("--full prints all"))
            #expect(full.lines.count > run.lines.count)

            // JSON body fields and signed URLs are redacted too (the demo's configuration).
            let token = try #require(all.first { ($0["url"] as? String)?.hasSuffix("/oauth/token") == true }?["id"] as? String)
            let tokenRun = await logstore("task", url.path, token)
            #expect(tokenRun.output.contains(#""refresh_token": "<private>""#))
            #expect(tokenRun.output.contains("Set-Cookie: <private>"))
            let upload = try #require(all.first { $0["method"] as? String == "PUT" }?["id"] as? String)
            let uploadRun = await logstore("task", url.path, upload)
            #expect(uploadRun.output.contains("X-Amz-Signature=%3Cprivate%3E"))
            #expect(uploadRun.output.contains("bytes binary (application/pdf)"))

            let png = try #require(all.first { ($0["url"] as? String)?.hasSuffix(".png") == true }?["id"] as? String)
            let pngRun = await logstore("task", url.path, png)
            #expect(pngRun.output.contains("Image: PNG, 200 × 150 pixels"))
            #expect(pngRun.output.contains("bytes binary (image/png)"))

            let timeout = try #require(all.first { ($0["error"] as? [String: Any])?["code"] as? Int == -1001 }?["id"] as? String)
            let timeoutRun = await logstore("task", url.path, timeout)
            #expect(timeoutRun.output.contains("→ failed in "))
            #expect(timeoutRun.output.contains("Error: The request timed out. (NSURLErrorDomain -1001)"))
            #expect(timeoutRun.output.contains("no response"))

            let video = try #require(all.first { ($0["url"] as? String)?.hasSuffix(".mp4") == true }?["id"] as? String)
            #expect(await logstore("task", url.path, video).output.contains("(not stored: over the size limit)"))

            let decoding = try #require(all.first { ($0["contentType"] as? String) == "text/html" && $0["statusCode"] as? Int == 200 }?["id"] as? String)
            let decodingRun = await logstore("task", url.path, decoding)
            #expect(decodingRun.output.contains("Decoding error: dataCorrupted"))
            #expect(decodingRun.lines.contains("  <!DOCTYPE html>"))

            let json = await logstore("task", url.path, first, "--json")
            let details = try jsonObject(json.output)
            #expect((details["summary"] as? [String: Any])?["id"] as? String == first)
            #expect((details["responseBodyKey"] as? String)?.count == 40)
            #expect(((details["request"] as? [String: Any])?["headers"] as? [String: String])?["Authorization"] == "<private>")
            #expect((details["transactions"] as? [Any])?.count == 1)
        }
    }

    @Test func anUnknownTaskIsAFailure() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url, count: 20, tasks: 3)
            let id = "6F9619FF-8B86-D011-B42D-00C04FC964FF"
            let run = await logstore("task", url.path, id)
            #expect(run.status == ExitStatus.notFound)
            #expect(run.error.hasPrefix("logstore: no task with id \(id) in \(url.path): 'logstore tasks "))
            #expect(run.output.isEmpty)
            let malformed = await logstore("task", url.path, "1234")
            #expect(malformed.status == 64)
            #expect(malformed.error.contains("invalid task id '1234'"))
        }
    }

    @Test func jsonIsReindentedKeepingItsOrder() {
        let body = Data(#"{"b":1,"a":[1, 2.50,{"c":"x, {y}: \"z\""}],"e":{},"f":[ ],"g":null}"#.utf8)
        let (lines, truncated) = JSONPretty.lines(body, limit: nil)
        #expect(!truncated)
        #expect(lines == [
            "{", #"  "b": 1,"#, #"  "a": ["#, "    1,", "    2.50,", "    {", #"      "c": "x, {y}: \"z\"""#, "    }", "  ],",
            #"  "e": {},"#, #"  "f": [],"#, #"  "g": null"#, "}",
        ])
        #expect(JSONPretty.lines(body, limit: 3) == (["{", #"  "b": 1,"#, #"  "a": ["#], true))
        #expect(TaskFormat.isJSON(body, contentType: "application/problem+json; charset=utf-8"))
        #expect(TaskFormat.isJSON(body, contentType: nil))
        #expect(!TaskFormat.isJSON(body, contentType: "text/html"))
        #expect(!TaskFormat.isJSON(Data("{not json".utf8), contentType: "application/json"))
    }
}
