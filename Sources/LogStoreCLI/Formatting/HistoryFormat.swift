import Foundation
import LogStore

/// How `logstore history` prints a ``HistoryStatus``: the authors as a table, then the
/// history's size and cleanup as fields.
enum HistoryFormat {
    /// The line for a store without a history.
    static let noHistory = "No change history: no process has opened this store with a history configuration "
        + "(LogStore.Configuration.history), so no change was recorded."

    static func lines(_ status: HistoryStatus, path: String, now: Date, style: TextStyle, width: Int?) -> [String] {
        guard status.isRecorded else { return [noHistory] }
        var lines = [style.bold("Change history of \(Format.escaped(path))"), ""]
        if status.authors.isEmpty {
            lines.append("No authors registered.")
        } else {
            lines += authorTable(status.authors, now: now, style: style).lines(width: width, headerPaint: style.bold)
        }
        if !status.shippers.isEmpty {
            lines.append("")
            lines += shipperTable(status.shippers, now: now, style: style).lines(width: width, headerPaint: style.bold)
            for shipper in status.shippers {
                guard let error = shipper.lastError, let date = shipper.lastErrorDate else { continue }
                lines.append(style.dim("\(Format.escaped(shipper.author)), last failure \(ago(date, now: now)): \(Format.escaped(error))"))
            }
        }
        lines.append("")
        lines += Format.fields([
            ("Changes", size(status)),
            ("Last cleanup", lastCleanup(status, now: now)),
            ("Cleanable now", cleanable(status)),
            ("Retention guard", retentionGuard(status)),
        ])
        return lines
    }

    static func authorTable(_ authors: [HistoryStatus.Author], now: Date, style: TextStyle) -> Table {
        var table = Table(columns: [
            Table.Column(header: "AUTHOR", isFlexible: true), Table.Column(header: "KIND"),
            Table.Column(header: "CURSOR", alignment: .right), Table.Column(header: "BEHIND (changes/txns)", alignment: .right),
            Table.Column(header: "LAST MERGE"), Table.Column(header: "MERGES", alignment: .right),
            Table.Column(header: "RETIRED"), Table.Column(header: "GAPS"), Table.Column(header: "GUARD"),
        ])
        for author in authors {
            let isBatch = author.kind == .batch
            let behind = isBatch ? "-" : "\(Format.count(author.behindChanges)) / \(Format.count(author.behindTransactions))"
            let isLagging = author.behindChanges > 0 && !isBatch && author.retired == nil
            let plain: (String) -> String = { $0 }
            let paintBehind: (String) -> String = isLagging ? { style.yellow($0) } : plain
            let paintGaps: (String) -> String = author.gapRowCount > 0 ? { style.red($0) } : plain
            table.rows.append([
                Table.Cell(Format.escaped(author.name)),
                Table.Cell(author.kind.rawValue),
                Table.Cell(String(author.cursor)),
                Table.Cell(behind, paint: paintBehind),
                Table.Cell(author.lastMerge.map { ago($0, now: now) }
                    ?? (isBatch ? "-" : author.opened == nil ? "not opened yet" : "never")),
                Table.Cell(Format.count(author.merges)),
                Table.Cell(author.retired.map { ago($0, now: now) } ?? "-", paint: { style.dim($0) }),
                Table.Cell(gaps(author), paint: paintGaps),
                Table.Cell(guardRequest(author)),
            ])
        }
        return table
    }

    /// The shippers (``LogShipper``): where each sends, what it sent, its failures, how far behind.
    static func shipperTable(_ shippers: [ShipperStatus], now: Date, style: TextStyle) -> Table {
        var table = Table(columns: [
            Table.Column(header: "SHIPPER"), Table.Column(header: "DESTINATION", isFlexible: true),
            Table.Column(header: "SENT (rows/requests)", alignment: .right), Table.Column(header: "LAST SENT"),
            Table.Column(header: "LAG", alignment: .right), Table.Column(header: "RETRIED", alignment: .right),
            Table.Column(header: "FAILED", alignment: .right), Table.Column(header: "SET ASIDE", alignment: .right),
            Table.Column(header: "GAPS", alignment: .right),
        ])
        for shipper in shippers {
            let lag = shipper.lag.map { Format.duration($0) } ?? "-"
            let behind = shipper.backfillRows > 0 ? "\(lag), \(Format.count(Int(shipper.backfillRows))) to backfill" : lag
            let plain: (String) -> String = { $0 }
            table.rows.append([
                Table.Cell(Format.escaped(shipper.author)),
                Table.Cell(Format.escaped(shipper.destination)),
                Table.Cell("\(Format.count(shipper.sentRows)) / \(Format.count(shipper.sentRequests))"),
                Table.Cell(shipper.lastSent.map { ago($0, now: now) } ?? "never"),
                Table.Cell(behind, paint: shipper.isCaughtUp ? plain : { style.yellow($0) }),
                Table.Cell(Format.count(shipper.retries)),
                Table.Cell(Format.count(shipper.failures), paint: shipper.failures > 0 ? { style.yellow($0) } : plain),
                Table.Cell(Format.count(shipper.setAsideRows), paint: shipper.setAsideRows > 0 ? { style.red($0) } : plain),
                Table.Cell(Format.count(shipper.gapRows), paint: shipper.gapRows > 0 ? { style.red($0) } : plain),
            ])
        }
        return table
    }

    /// `3m 12s ago`, from the command's "now" (a date past it, from a clock that runs ahead,
    /// reads `just now`).
    static func ago(_ date: Date, now: Date) -> String {
        let seconds = now.timeIntervalSince(date)
        return seconds < 1 ? "just now" : "\(Format.duration(seconds)) ago"
    }

    /// `-`, or `12 messages, 1 task`.
    static func gaps(_ author: HistoryStatus.Author) -> String {
        let parts = HistoryEntity.allCases.compactMap { entity -> String? in
            guard let rows = author.gapRows[entity], rows > 0 else { return nil }
            return Format.plural(rows, name(entity))
        }
        return parts.isEmpty ? "-" : parts.joined(separator: ", ")
    }

    static func name(_ entity: HistoryEntity) -> String {
        switch entity {
        case .message: "message"
        case .task: "task"
        case .session: "session"
        case .blob: "blob"
        }
    }

    /// `17 (seq 1…17), about 1.2 KB`; once cleaned to nothing, `0 (seq 17 was the last)`.
    static func size(_ status: HistoryStatus) -> String {
        let count = Format.count(status.changeCount)
        guard let first = status.firstSequence, let last = status.lastSequence else {
            return status.lastSequence.map { "\(count) (seq \($0) was the last)" } ?? count
        }
        return "\(count) (seq \(first)…\(last)), about \(Format.bytes(status.byteCount))"
    }

    static func lastCleanup(_ status: HistoryStatus, now: Date) -> String {
        guard let date = status.lastCleanup else { return "never" }
        return "\(ago(date, now: now)), through seq \(status.cleanedThrough)"
    }

    /// What a cleanup could delete, and which author's cursor stops it there.
    static func cleanable(_ status: HistoryStatus) -> String {
        guard let limit = status.cleanupLimit else { return "nothing (no author registered)" }
        let holding = status.authors.filter { $0.kind == .required && $0.retired == nil }
        let reason = holding.min { $0.cursor < $1.cursor }
            .map { "held at the cursor of \(Format.escaped($0.name))" } ?? "no required author holds it back"
        guard status.cleanableChangeCount > 0 else { return "nothing (\(reason), seq \(limit))" }
        return "\(Format.plural(status.cleanableChangeCount, "change")) through seq \(limit) (\(reason))"
    }

    /// Whether `author` asks for the retention guard: `asks`, `-`, or `asks (batch: ignored)`
    /// for a batch author's row that says it asks, which holds nothing back (the library
    /// refuses such a request at open; a row written before it did, or by another tool, may).
    static func guardRequest(_ author: HistoryStatus.Author) -> String {
        guard author.asksForRetentionGuard else { return "-" }
        return author.kind == .batch ? "asks (batch: ignored)" : "asks"
    }

    /// `on (asked by api, worker): …` or `off (no required author asks for it)`: whether every
    /// age sweep, of any process or tool, keeps what a consumer has not seen.
    static func retentionGuard(_ status: HistoryStatus) -> String {
        let askers = status.retentionGuardAuthors.map { Format.escaped($0.name) }
        guard !askers.isEmpty else { return "off (no required author asks for it)" }
        return "on (asked by \(askers.joined(separator: ", "))): every age sweep keeps what a required author has not consumed"
    }

    /// The failure of `--retire` with a name no author has, listing those there are.
    static func unknownAuthor(_ name: String, in status: HistoryStatus) -> String {
        let known = status.authors.map { Format.escaped($0.name) }
        let list = known.isEmpty ? "it has none" : "its authors are " + known.joined(separator: ", ")
        return "no history author named '\(Format.escaped(name))' in this store (\(list))"
    }
}
