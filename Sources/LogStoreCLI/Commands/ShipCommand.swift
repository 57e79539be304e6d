import Foundation
import LogStore

/// `logstore ship <store> --clickhouse URL | --otlp URL`: a shipper in the foreground, beside the
/// app that logs into the store, until SIGINT or SIGTERM (or, with `--until-caught-up`, until
/// what was committed when it started is acknowledged).
enum ShipCommand: Command {
    static let spec = CommandSpec(
        name: "ship",
        summary: "Ship a store to ClickHouse or an OTLP endpoint, at least once, until stopped.",
        positionals: [.init(name: "store", help: "The store directory (it must exist; archives are not shipped).")],
        options: [clickHouse, cluster, database, otlp, header, service, node, author, untilCaughtUp],
        discussion: """
            The shipper is a history author of the store: its cursor moves only once the
            destination acknowledged the rows, so a shipper stopped or killed at any moment
            sends again what was not acknowledged, and nothing is skipped. The age sweep keeps
            what it has not sent (the retention guard); rows the size limit deleted first reach
            the destination as counted gap rows. The rows the store held before the first run
            are sent first. It prints a line per minute, and each retry and refusal as it
            happens; 'logstore history' shows its counters from any process.

            ClickHouse: the tables logstore_messages, logstore_tasks and logstore_gaps are
            created when missing. With --cluster they are ReplicatedReplacingMergeTree tables
            (<name>_local, named by each server's {shard} and {replica} macros) with a
            Distributed table over them; give every replica's URL, comma-separated: a failing
            one is left for the next. User and password go in the URL (http://user:pw@host:8123).

            OTLP/HTTP: JSON bodies posted to the URL as given (include /v1/logs). Retried on
            429, 502, 503 and 504 (after Retry-After) and on failed connections; 400 and 413
            set the batch aside.

            Ends with status 0 on Ctrl-C (SIGINT) or SIGTERM, after the request in flight.

            Examples:
              logstore ship app.logstore --clickhouse http://127.0.0.1:8123
              logstore ship app.logstore --clickhouse http://ch1:8123,http://ch2:8123 --cluster logs
              logstore ship app.logstore --otlp http://127.0.0.1:4318/v1/logs --service checkout
              logstore ship app.logstore --clickhouse http://127.0.0.1:8123 --until-caught-up
            """)

    static let clickHouse = ValueOption(
        "clickhouse", "urls", "ClickHouse's HTTP interface: one URL, or the replicas' URLs comma-separated.")
    static let cluster = ValueOption(
        "cluster", "name", "The ClickHouse cluster (remote_servers) to replicate the tables in.")
    static let database = ValueOption("database", "name", "The ClickHouse database of the tables (default: default).")
    static let otlp = ValueOption("otlp", "url", "An OTLP/HTTP logs endpoint, /v1/logs included.")
    static let header = RepeatableOption("header", "name: value", "A request header for the OTLP endpoint (an API key).")
    static let service = ValueOption("service", "name", "OTLP's service.name (default: the store's directory name).")
    static let node = ValueOption("node", "name", "This machine's name in the shipped rows (default: the host name).")
    static let author = ValueOption(
        "author", "name", "The history author to ship as (default: shipper:clickhouse or shipper:otlp).")
    static let untilCaughtUp = FlagOption(
        "until-caught-up", "Stop once everything committed when it started is acknowledged (for cron and scripts).")

    static func run(_ arguments: ParsedArguments, console: inout Console) async throws {
        let path = arguments.positionals[0]
        if StoreAccess.isArchive(path) {
            throw CommandFailure(description: "\(path) is an archive: only a store is shipped (its rows are already kept)")
        }
        var configuration = LogShipper.Configuration(
            destination: try destination(arguments, storeName: StoreAccess.url(path).deletingPathExtension().lastPathComponent),
            author: arguments.value(author), node: arguments.value(node))
        configuration.longestRetryDelay = .seconds(30)
        let shipper = try await LogShipper(storeURL: StoreAccess.url(path), configuration: configuration)
        let events = shipper.events()
        let stop = StopSignal()
        let signals = stop.received
        let stopper = Task {
            for await _ in signals {
                shipper.stop()
                return
            }
        }
        let running = Task { try await shipper.run() }
        var waiter: Task<Void, any Error>?
        if arguments.flag(untilCaughtUp) {
            waiter = Task {
                // Bounded by nothing but the stop: a destination that is down keeps it waiting.
                while !Task.isCancelled {
                    if try await shipper.waitUntilCaughtUp(timeout: .seconds(3600)) { break }
                }
                shipper.stop()
            }
        }
        console.line("Shipping \(Format.escaped(path)) as \(Format.escaped(configuration.author)) to \(configuration.destination)")
        console.flush()
        var tally = Tally()
        // The shipper's events and a tick a minute, in one sequence the printing loop reads.
        let (lines, feed) = AsyncStream.makeStream(of: Tally.Input.self)
        let forwarder = Task {
            for await event in events { feed.yield(.event(event)) }
            feed.finish()
        }
        let ticker = Task {
            while true {
                try await Task.sleep(for: .seconds(60))
                feed.yield(.minute)
            }
        }
        defer {
            ticker.cancel()
            forwarder.cancel()
            stopper.cancel()
            stop.cancel()
            waiter?.cancel()
        }
        let ended = Task {
            _ = await running.result
            try await shipper.close()
        }
        for await input in lines {
            if let line = tally.line(for: input, style: console.style) {
                console.line(line)
                console.flush()
            }
        }
        try await ended.value
        try await running.value
        let status = try await StoreAccess.withReadonlyStore(path) { try await $0.info() }.shippers
            .first { $0.author == configuration.author }
        if let status {
            console.line(
                "Stopped: \(Format.plural(status.sentRows, "row")) sent in \(Format.plural(status.sentRequests, "request")) "
                    + "so far, \(Format.count(status.retries)) retried, \(Format.count(status.setAsideRows)) set aside, "
                    + "\(Format.count(status.gapRows)) in gaps; \(status.isCaughtUp ? "caught up" : "\(Format.count(status.behindChanges)) changes behind").")
        }
    }

    private static func destination(_ arguments: ParsedArguments, storeName: String) throws(UsageError) -> LogShipper.Destination {
        switch (arguments.value(clickHouse), arguments.value(otlp)) {
        case (nil, nil):
            throw UsageError(message: "give --clickhouse or --otlp: where to ship", command: spec.name)
        case (.some, .some):
            throw UsageError(message: "--clickhouse and --otlp cannot be combined: run one shipper for each", command: spec.name)
        case (.some(let list), nil):
            var urls: [URL] = []
            for item in list.split(separator: ",") { urls.append(try url(String(item), option: clickHouse.name)) }
            return .clickHouse(ClickHouseDestination(
                urls: urls, database: arguments.value(database) ?? "default", cluster: arguments.value(cluster)))
        case (nil, .some(let text)):
            var headers: [String: String] = [:]
            for field in arguments.all(header) {
                let parts = field.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else {
                    throw UsageError(message: "--header takes 'name: value', not '\(field)'", command: spec.name)
                }
                headers[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
            }
            return .otlp(OTLPDestination(
                url: try url(text, option: otlp.name), headers: headers, serviceName: arguments.value(service) ?? storeName))
        }
    }

    private static func url(_ text: String, option: String) throws(UsageError) -> URL {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw UsageError(message: "--\(option) takes http:// or https:// URLs, not '\(text)'", command: spec.name)
        }
        return url
    }

    /// What the command prints of the events: retries and refusals at once, the rest summed up
    /// once a minute.
    private struct Tally {
        enum Input: Sendable {
            case event(ShippingEvent)
            case minute
        }

        var rows = 0
        var requests = 0
        var bytes = 0

        mutating func line(for input: Input, style: TextStyle) -> String? {
            guard case .event(let event) = input else {
                guard requests > 0 else { return nil }
                defer { (rows, requests, bytes) = (0, 0, 0) }
                return "sent \(Format.plural(rows, "row")) in \(Format.plural(requests, "request")) "
                    + "(\(Format.bytes(Int64(bytes)))) in the last minute"
            }
            switch event {
            case .sent(let rows, let bytes, _):
                self.rows += rows
                requests += 1
                self.bytes += bytes
                return nil
            case .retrying(let error, let attempt, let delay):
                return style.yellow("retry \(attempt) in \(Format.duration(delay.seconds)): \(Format.escaped(error))")
            case .setAside(let rows, let reason):
                return style.red("set aside \(Format.plural(rows, "row")): \(Format.escaped(reason))")
            case .gap(let entity, let rows):
                return style.red("gap: \(Format.plural(rows, "\(entity)")) deleted by the size limit before they were shipped")
            case .caughtUp:
                return nil
            }
        }
    }
}

extension Duration {
    /// The duration in seconds.
    fileprivate var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
