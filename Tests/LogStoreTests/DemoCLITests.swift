import Foundation
import LogStore
import Testing
@testable import LogStoreCLI
@testable import LogStoreDemo

/// `logstore demo`: the store it writes, its refusals, and the pieces it writes with.
@Suite struct DemoCLITests: CLITestCase {
    @Test func demoWritesTheRequestedMessages() async throws {
        try await withTemporaryStoreURL { url in
            let run = await logstore("demo", url.path, "--count", "500", "--sessions", "2", "--seed", "7")
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.contains("500 messages in 2 sessions"))
            #expect(run.output.contains("logstore info \(url.path)"))
            #expect(run.output.contains("--level warning --limit 20"))
            let store = try await LogStore(storeURL: url, options: [.readonly])
            let info = try await store.info()
            try await store.close()
            #expect(info.messageCount == 500)
            #expect(info.sessionCount == 2)
            #expect(info.droppedEventCount == 0)
        }
    }

    @Test func demoRefusesANonEmptyStoreWithoutAppend() async throws {
        try await withTemporaryStoreURL { url in
            #expect(await logstore("demo", url.path, "--count", "50").status == 0)
            let refused = await logstore("demo", url.path, "--count", "50")
            #expect(refused.status == 1)
            #expect(refused.error.contains("--append"))
            let appended = await logstore("demo", url.path, "--count", "50", "--append", "--sessions", "1")
            #expect(appended.status == 0, "\(appended.error)")
            let info = await logstore("info", url.path, "--json")
            let object = try jsonObject(info.output)
            #expect(object["messageCount"] as? Int == 100)
        }
    }

    @Test func demoTimesIncreaseAndEndByNow() async throws {
        try await withTemporaryStoreURL { url in
            #expect(await logstore("demo", url.path, "--count", "2000", "--sessions", "3", "--seed", "1").status == 0)
            let store = try await LogStore(storeURL: url, options: [.readonly])
            let page = try await store.messages(MessageQuery(order: .oldestFirst, limit: 5000, includesTaskMessages: true))
            try await store.close()
            // The network tasks' technical messages share the timeline (and carry the task's id).
            let logged = page.messages.filter { $0.metadata["taskID"] == nil }
            #expect(logged.count == 2000)
            #expect(page.messages.count > 2000)
            let times = page.messages.map(\.createdAt)
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
            #expect(times.last! <= CLIFixtures.now)
            #expect(times.first! >= CLIFixtures.now.addingTimeInterval(-3 * 3600))
            #expect(Set(page.messages.map(\.label)).count >= 15)
            #expect(page.messages.contains { !$0.metadata.isEmpty })
        }
    }

    @Test func demoWritesTasksAndBlobs() async throws {
        try await withTemporaryStoreURL { url in
            let run = await logstore("demo", url.path, "--count", "400", "--tasks", "40", "--sessions", "2", "--seed", "3")
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.contains("400 messages in 2 sessions"))
            #expect(run.output.contains("40 tasks to "))
            #expect(run.output.contains("Authorization: <private>"))
            #expect(run.output.contains("logstore blobs \(url.path)"))
            let object = try jsonObject(await logstore("info", url.path, "--json").output)
            #expect(object["messageCount"] as? Int == 400)
            #expect(object["taskCount"] as? Int == 40)
            #expect((object["blobCount"] as? Int ?? 0) > 0)
            #expect((object["blobsDecompressedSize"] as? Int ?? 0) > (object["blobsSize"] as? Int ?? 0))
            // Exports are large enough to be files.
            let files = try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent("blobs").path)
            #expect(!files.isEmpty)

            let none = await logstore("demo", url.path, "--count", "10", "--tasks", "0", "--append", "--sessions", "1")
            #expect(none.status == 0, "\(none.error)")
            #expect(!none.output.contains("Network tasks:"))
            #expect(try jsonObject(await logstore("info", url.path, "--json").output)["taskCount"] as? Int == 40)
        }
    }

    @Test func demoTasksAreRecordedAsWritten() async throws {
        try await withTemporaryStoreURL { url in
            try await CLIFixtures.makeDemoStore(at: url)
            let store = try await LogStore(storeURL: url, options: [.readonly])
            let page = try await store.tasks(TaskQuery(order: .oldestFirst, limit: 1000))
            let images = page.tasks.filter { $0.contentType?.hasPrefix("image/") == true && $0.statusCode == 200 }
            var formats: Set<String> = []
            for image in images {
                let details = try #require(try await store.task(id: image.id))
                let format = try #require(details.metadata["imageFormat"], "\(image.url ?? "")")
                formats.insert(format)
                let width = try #require(details.metadata["imageWidth"].flatMap { Int($0) })
                #expect(image.url?.contains("/\(width)x") == true || image.url?.contains(".gif") == true)
            }
            #expect(formats == ["png", "jpeg", "gif"])
            // Failures: timeouts and refused connections without a response, and 5xx answers.
            #expect(page.tasks.contains { $0.error?.code == -1001 && $0.statusCode == nil && $0.state == .failure })
            #expect(page.tasks.contains { ($0.statusCode ?? 0) >= 500 && $0.state == .failure })
            #expect(page.tasks.filter { $0.state == .pending }.count == 2)
            #expect(page.tasks.contains { $0.taskType == .download && $0.progress != nil })
            // Metrics with phases, and a redirect with two transactions.
            let first = try #require(try await store.task(id: page.tasks[0].id))
            #expect(first.transactions.first?.responseStart != nil)
            var redirected = false
            for task in page.tasks where task.url?.hasPrefix("https://cdn.") == true {
                if try await store.task(id: task.id)?.transactions.count == 2 { redirected = true }
            }
            #expect(redirected)
            try await store.close()
        }
    }

    @Test func demoImagesAreWhatTheyClaim() throws {
        var random = DemoRandom(seed: 1)
        let png = DemoImages.png(width: 200, height: 150, &random)
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(png.count > 200 * 150)
        let gif = DemoImages.gif(width: 32, height: 32)
        #expect(gif.prefix(6) == Data("GIF89a".utf8))
        #expect(gif.last == 0x3B)
        let jpeg = DemoImages.jpeg(width: 800, height: 600)
        #expect(jpeg.prefix(2) == Data([0xFF, 0xD8]))
        #expect(jpeg.suffix(2) == Data([0xFF, 0xD9]))
        // CRC-32 and Adler-32 check values of "123456789".
        #expect(DemoImages.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(DemoImages.adler32(Array("123456789".utf8)) == 0x091E_01DE)
    }

    @Test func theDemosRenderingsAreTheCommands() {
        // The same seed must keep writing the same texts and bodies now that the demo renders its own.
        for value in [0, 1, 999, 1000, 12_345, 99_999, 100_000, 999_499, 999_500, 20_660_224, 4_000_000, Int(Int32.max)] {
            #expect(DemoFormat.bytes(Int64(value)) == Format.bytes(Int64(value)), "\(value)")
            #expect(DemoFormat.count(value) == Format.count(value), "\(value)")
            #expect(DemoFormat.count(-value) == Format.count(-value), "\(value)")
        }
        for value in [0.2, 1.25, 39.99, 12.05] {
            #expect(DemoFormat.decimal(value, places: 1) == Format.decimal(value, places: 1))
        }
        for status in [404, 409, 422, 500, 503] {
            #expect(DemoFormat.reason(status) == HTTPStatus.reason(status))
        }
        for seconds in [0, 1_750_000_000, 1_749_945_599.9996, 1_749_945_599.9994, -0.25, 86_399.9999] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(DemoFormat.day(date) == String(Format.timestamp(date).prefix(10)), "\(seconds)")
        }
    }
}
