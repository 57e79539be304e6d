import Foundation
import LogStore
import LogStoreConsole

/// `serve.tail_latency_ms_p99`: from `storeMessage` in a child process to the event arriving on
/// the console's `/api/tail` (Server-Sent Events) at a client on a socket.
///
/// The child is ``TailBenchmark``'s paced writer (2k messages a second, each text its send time
/// on `CLOCK_REALTIME`, `saveInterval` 300 ms). This process has the store open read-only, a
/// console on it, an SSE client on a thread of its own, and, as the baseline, an in-process
/// `tail()` of the same store receiving the same messages at the same time (what
/// `tail.latency_ms_p99` measures alone): the ratio is what the console's tail, its JSON and the
/// socket add. The target is absolute: p99 under `saveInterval + 100 ms`.
extension ServeBenchmark {
    func tailLatency() async throws -> Figure {
        let count = quick ? 4_000 : TailBenchmark.count
        let url = directory.appendingPathComponent("serve-tail.logstore")
        try await LogStore(storeURL: url, options: [.create]).close()
        let store = try await LogStore(storeURL: url, options: [.readonly])
        let console: LogStoreConsole
        do {
            console = try await LogStoreConsole.start(store: store)
        } catch {
            try? await store.close()
            throw error
        }
        let result: Result<(events: [Double], inProcess: [Double]), any Error>
        do {
            result = .success(try await Self.measureTail(store: store, console: console, count: count, url: url))
        } catch {
            result = .failure(error)
        }
        await console.stop()
        try? await store.close()
        try? FileManager.default.removeItem(at: url)
        let (events, inProcess) = try result.get()

        let saveInterval = TailBenchmark.saveInterval / .milliseconds(1)
        let bound = saveInterval + 100
        let eventsP99 = Self.at(events, 0.99)
        let inProcessP99 = Self.at(inProcess, 0.99)
        print(String(
            format: "serve: tail over SSE p50 %.1f ms, p99 %.1f ms, max %.1f ms; in-process tail() p50 %.1f ms, p99 %.1f ms; "
                + "p99 must stay under saveInterval %.0f ms + 100 ms = %.0f ms: %@",
            Self.at(events, 0.5), eventsP99, events.last ?? 0, Self.at(inProcess, 0.5), inProcessP99,
            saveInterval, bound, eventsP99 < bound ? "yes" : "NO"))
        return Figure(
            name: "serve.tail_latency_ms_p99", value: eventsP99, baseline: inProcessP99, unit: "ms",
            baselineDescription: "the in-process `tail()` of the same \(count) messages at the same time (a child's "
                + "`storeMessage` at 2k/s, `saveInterval` \(Int(saveInterval)) ms); ours: the same messages as events "
                + "on `/api/tail` read from a socket",
            target: "value < \(Int(bound)) ms (saveInterval + 100 ms); ratio ≈ 1")
    }

    /// Both tails' latencies (ms, sorted): the SSE client's and the in-process tail's.
    private static func measureTail(
        store: LogStore, console: LogStoreConsole, count: Int, url: URL
    ) async throws -> (events: [Double], inProcess: [Double]) {
        let endpoint = try ConsoleEndpoint(console)
        let runFor = Double(count) / TailBenchmark.perSecond
        let deadline = ContinuousClock.now + .seconds(runFor + 30)
        // The writer starts only once the stream is open: its first messages must not be missed.
        let (opened, openedContinuation) = AsyncStream.makeStream(of: Void.self)
        let client = Task {
            try await ThreadRunner.run {
                defer { openedContinuation.finish() }
                return try TailEventClient.latencies(endpoint: endpoint, count: count, deadline: deadline) {
                    openedContinuation.finish()
                }
            }
        }
        for await _ in opened {}
        let tail = try await store.tail()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        child.arguments = [TailBenchmark.writerFlag, String(count), String(TailBenchmark.perSecond), url.path]
        try child.run()
        // A child that dies early must not leave the tail waiting for ever: closing ends it.
        let watchdog = Task {
            try await Task.sleep(until: deadline, clock: .continuous)
            try await store.close()
        }
        var inProcess: [Double] = []
        inProcess.reserveCapacity(count)
        do {
            for try await message in tail {
                let received = TailBenchmark.realtimeNanoseconds()
                guard let sent = Int64(message.text) else { continue }
                inProcess.append(Double(received - sent) / 1e6)
                if inProcess.count == count { break }
            }
        } catch {
            watchdog.cancel()
            client.cancel()
            throw error
        }
        watchdog.cancel()
        let events = try await client.value
        child.waitUntilExit()
        guard inProcess.count == count, events.count == count, child.terminationStatus == 0 else {
            throw BenchError.failed(
                "the tails received \(inProcess.count) and \(events.count) of \(count); writer exit \(child.terminationStatus)")
        }
        return (events.sorted(), inProcess.sorted())
    }

    private static func at(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}

/// The SSE client of `serve.tail_latency_ms_p99`: reads `/api/tail` on the calling thread and
/// times each message event from its text (the send time) to the `recv` that brought it.
enum TailEventClient {
    /// The latencies (ms, in arrival order) of the first `count` message events.
    /// - Parameter onOpen: called when the stream's first bytes arrive (its `retry:` line, sent
    ///   once the console's tail is in place).
    static func latencies(
        endpoint: ConsoleEndpoint, count: Int, deadline: ContinuousClock.Instant, onOpen: () -> Void
    ) throws -> [Double] {
        var latencies: [Double] = []
        latencies.reserveCapacity(count)
        var line: [UInt8] = []
        var isOpen = false
        let dataPrefix = Array("data: ".utf8)
        try LoopbackHTTPClient.get(
            port: endpoint.port, target: "/api/tail", headers: endpoint.headers + [("Accept", "text/event-stream")],
            deadline: deadline,
            onHead: { head in
                guard head.status == 200 else { throw BenchError.failed("/api/tail answered \(head.status)") }
            }
        ) { piece in
            // Every event this piece completes arrived now, whatever parsing it costs after.
            let received = TailBenchmark.realtimeNanoseconds()
            if !isOpen {
                isOpen = true
                onOpen()
            }
            for byte in piece {
                guard byte == UInt8(ascii: "\n") else {
                    line.append(byte)
                    continue
                }
                if line.starts(with: dataPrefix), let sent = try sentTime(line.dropFirst(dataPrefix.count)) {
                    latencies.append(Double(received - sent) / 1e6)
                }
                line.removeAll(keepingCapacity: true)
            }
            return latencies.count < count
        }
        return latencies
    }

    /// The send time in a message event's JSON (its `text`); nil for another event (a gap).
    private static func sentTime(_ json: ArraySlice<UInt8>) throws -> Int64? {
        struct Event: Decodable {
            var text: String?
        }
        guard let text = try JSONDecoder().decode(Event.self, from: Data(json)).text else { return nil }
        return Int64(text)
    }
}
