import Foundation

extension LogStore {
    /// Tunables of a store. Every field has a default; change only what you need:
    ///
    /// ```swift
    /// var configuration = LogStore.Configuration()
    /// configuration.sizeLimit = 64_000_000
    /// configuration.willHandleEvent = { event in event }   // rewrite or drop (return nil)
    /// ```
    public struct Configuration: Sendable {
        /// The most the store may take on disk (database, WAL and blob files). The sweep trims
        /// the oldest data once the store reaches 85 % of it (``sizeSweepThresholdRatio``), so
        /// what is logged while the sweep runs still fits. Default: 256 MB.
        public var sizeLimit: Int64 = 256_000_000

        /// The longest a logged event waits before the writer commits it. Default: 300 ms.
        ///
        /// With ``isGroupCommitEnabled`` (the default) the writer commits as soon as it is free,
        /// so this bounds only the writer's other waits. With it off, the writer commits every
        /// save interval, sooner when many events are waiting; ``LogStore/flush()`` commits at
        /// once either way.
        public var saveInterval: Duration = .milliseconds(300)

        /// Whether the writer commits logged events as soon as it is free (group commit)
        /// rather than once per ``saveInterval``. Default: `true`.
        ///
        /// An idle writer is woken by the first event logged; what is logged while it commits
        /// waits and goes into the next transaction, so under load transactions grow by
        /// themselves and throughput stays that of batching, while under a light load an event
        /// is committed, and seen by live tails and other processes, within a few milliseconds.
        /// Two commits are at least 5 ms apart (at most 200 transactions a second). Each
        /// transaction appends the pages it changed to the WAL (no `fsync`:
        /// `synchronous = NORMAL`), so a light, steady load costs more writes and CPU than
        /// with batching (at 2k messages a second, ~30 % more CPU in the writing process).
        /// Turn it off to batch every ``saveInterval`` instead (Pulse's behaviour, chosen for
        /// phones, where fewer writes save battery).
        public var isGroupCommitEnabled: Bool = true

        /// Response and request bodies larger than this are not stored; the task records that
        /// and the original size. Default: 8 MiB.
        public var bodySizeLimit: Int = 8 * 1024 * 1024

        /// Messages and tasks older than this are removed by the sweep. Default: 14 days.
        ///
        /// While a history author asks for the retention guard (``HistoryConfiguration/retentionGuard``,
        /// recorded in the store: it applies to this process too, whatever its own history
        /// configuration), rows older than this that a consuming author has not read yet stay,
        /// however old; ``SweepReport/guardedMessages`` and ``SweepReport/guardedTasks`` count
        /// them. The size limit (``sizeLimit``) still trims them.
        public var maxAge: Duration = .seconds(14 * 24 * 3600)

        /// Blobs up to this size (after compression) are stored in the database; larger ones are
        /// files in `blobs/`. Default: 16 KiB.
        public var inlineBlobLimit: Int = 16 * 1024

        /// The share of ``sizeLimit`` that blobs may take before the oldest bodies are dropped.
        /// Default: 0.7.
        public var blobSizeShare: Double = 0.7

        /// The fraction of data kept when the sweep trims for size. Default: 0.7.
        public var trimRatio: Double = 0.7

        /// How often the sweep runs while the store is open with `.sweep`. Default: 1 hour.
        /// Independently of it, a store that reaches 85 % of ``sizeLimit`` is swept at once.
        public var sweepInterval: Duration = .seconds(3600)

        /// How long after opening the first sweep waits, so it does not compete with the start
        /// of the program (it runs then only when the last sweep is older than
        /// ``sweepInterval``). Default: 10 seconds.
        public var sweepDelay: Duration = .seconds(10)

        /// The store's clock: the start date of the session it records, the sweep's age cut-off
        /// and schedule, and the history merge's cleanup schedule. Default: ``TimeSource/system``.
        public var timeSource: TimeSource = .system

        /// Whether blobs are zlib-compressed (kept compressed only when that is smaller).
        /// Default: `true`.
        public var isBlobCompressionEnabled: Bool = true

        /// Whether this store's writer keeps the full-text index of messages up to date
        /// (``MessageQuery/text``, metadata filters). Default: `true`.
        ///
        /// The index is written after the messages, while the writer has nothing else to do,
        /// so logging calls never wait for it; under sustained full-speed logging it takes
        /// about half the writer's time (README "Full-text search" has the figures). With it
        /// off, nothing is indexed from then on and searches read the unindexed messages
        /// one by one (about 8 s per million); deletions keep what was indexed in step either
        /// way. Another process writing the same store with it on indexes for everyone.
        public var isSearchIndexEnabled: Bool = true

        /// Messages below this level are discarded at the call site before their text is built.
        /// Default: `.trace` (everything is kept).
        public var minimumLevel: Level = .trace

        /// How many logged events the store may hold in memory: waiting for the writer, being
        /// committed, or committed and not yet freed (that happens off the writer thread, a
        /// moment later). Past this, ``overflowPolicy`` applies. Default: 6,144: about 6 MB of
        /// messages with a line of text and some metadata (a message held costs about 1 KB with
        /// its share of the batch being committed and the allocator's slack), some 15 ms of the
        /// writer's work at full speed, three times OpenTelemetry's default batch queue, and a
        /// few seconds of a busy server's logging while the disk stalls. Raise it for larger
        /// bursts, at about 1 KB an event.
        public var maxPendingEvents: Int = 6_144

        /// How many bytes of logged events (estimated: texts, bodies, a fixed cost per event)
        /// may wait for the writer, counting those it is committing, those whose commit failed
        /// and waits to be retried, and committed ones not yet freed. Past this,
        /// ``overflowPolicy`` applies, as for ``maxPendingEvents``: together they bound the
        /// memory logging can hold, also while the disk fails. One event larger than this is
        /// accepted only when nothing else waits. Default: 64 MiB (room for a few bodies at
        /// ``bodySizeLimit`` beside a burst of messages).
        public var maxPendingBytes: Int = 64 * 1024 * 1024

        /// What happens to a logging call when ``maxPendingEvents`` are already waiting, or
        /// ``maxPendingBytes``. Default: ``OverflowPolicy/dropLowestLevelsFirst``.
        public var overflowPolicy: OverflowPolicy = .dropLowestLevelsFirst

        /// The application's version, recorded in each session. Default: `nil`.
        public var appVersion: String?

        /// Whether opening the store for writing records this process's session at once.
        /// Default: `true`: an application's run is a session from its first line.
        ///
        /// Set it to `false` for maintenance (a sweep, a removal, a tool that only reads through
        /// a writable store): the session row is then written only when the first message or
        /// task is committed, so a store swept from the shell every hour does not gain a session
        /// each time. ``LogStore/Info/sessionCount`` and ``LogStore/sessions()`` count it only
        /// from then on.
        public var recordsSessionOnOpen: Bool = true

        /// The change history this process writes and reads (``HistoryConfiguration``): nil (the
        /// default) writes none. With it, every transaction records what it changed, by id
        /// ranges, under ``HistoryConfiguration/currentAuthor``.
        public var history: HistoryConfiguration? = nil

        /// What is replaced by `<private>` in every network event, on every path
        /// (``LogStore/storeRequest(_:response:error:data:metrics:label:taskDescription:taskType:createdAt:direction:)``,
        /// ``NetworkLogger``), before bodies are hashed, stored or published, and before
        /// ``willHandleEvent`` sees the event. Default: `Redaction()`, the usual credentials
        /// (``Redaction/defaultSensitiveHeaders``, ``Redaction/defaultSensitiveQueryItems``,
        /// ``Redaction/defaultSensitiveJSONFields``) and every URL's user-info password.
        public var redaction = Redaction()

        /// Called for every event before it is stored or published on ``LogStore/subscribeEvents()``, in
        /// logging order and one call at a time, off the caller's thread (by the writer, or under
        /// load by its background preparation): return the event (possibly rewritten, e.g.
        /// redacted) or `nil` to drop it. Default: `nil` (events are stored as logged). Logging
        /// from here into the same store is safe (the call never waits, see ``onWriteError``),
        /// but each event logged here comes back through this hook.
        public var willHandleEvent: (@Sendable (Event) -> Event?)?

        /// Called on the writer's thread when committing logged events fails (disk full, I/O
        /// error, a busy database). The events are kept, within ``maxPendingEvents`` and
        /// ``maxPendingBytes``, and retried, after a wait that doubles with each failure up to
        /// 5 seconds; logging goes on. The same failure round after round is reported once,
        /// until a commit succeeds (``LogStore/Info/writeErrorCount`` counts every attempt). A
        /// damaged database (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) is reported once, as
        /// ``LogStoreError/writeFailed(_:)`` with a ``LogStoreError/storeInvalid(_:reason:)``
        /// cause: nothing more is written to it, every event logged from then on is dropped and
        /// counted (never waited for, whatever ``overflowPolicy``), and ``LogStore/flush()``
        /// fails with it. A damaged full-text index is reported once the same way; the index
        /// stops being kept up to date, and logging goes on. An event that fails on its own
        /// while others commit (a value SQLite refuses, a body file too large) is set aside
        /// instead of retried: this is called with its error and it is counted in
        /// ``LogStore/Info/rejectedEventCount``. Also called when a body's file could not be
        /// deleted (the commit stands; ``LogStore/Info/blobDeletionFailureCount``; the sweep
        /// deletes the file later), when the store cannot be measured for its size limit (once
        /// per cause: no size sweep starts meanwhile), and when a scheduled sweep fails.
        /// Default: `nil`. Commit errors are also counted in ``LogStore/Info``. Logging from here
        /// into the same store is safe: on the writer's thread a logging call never waits (not
        /// even with `.synchronous` or ``OverflowPolicy/waitForSpace``), and a failed scheduled
        /// sweep is reported from a global queue.
        public var onWriteError: (@Sendable (LogStoreError) -> Void)?

        /// Creates a configuration with every default.
        public init() {}
    }

    /// What a logging call does when the ingestion buffer is full.
    public enum OverflowPolicy: Sendable, Hashable {
        /// Never block the caller: evict the oldest waiting event of the lowest level waiting, as
        /// long as it is below the new event's level or equal to it; otherwise drop the new event.
        /// Every dropped event is counted (``LogStore/Info/droppedEventCount``) and the count is
        /// stored as a warning message with the label `logstore`.
        case dropLowestLevelsFirst
        /// Make the caller wait until the writer has made room: nothing is dropped, but logging
        /// slows to the writer's pace. For benchmarks and batch jobs that must keep everything.
        ///
        /// The waiting call blocks its thread: from async code use
        /// ``LogStore/log(createdAt:label:level:message:metadata:file:function:line:)``, which
        /// suspends instead, since a blocked cooperative thread stalls every task scheduled on it.
        case waitForSpace
    }
}
