extension LogStore {
    /// How a store is opened.
    ///
    /// The default, `[.create, .sweep]`, creates the store when missing and keeps it within its
    /// size and age limits.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: Int

        /// Options from their bits.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// Creates the store directory when it does not exist. Without it, a missing store throws
        /// ``LogStoreError/fileDoesntExist(_:)``.
        public static let create = Options(rawValue: 1 << 0)

        /// Keeps the store within ``LogStore/Configuration/sizeLimit`` and
        /// ``LogStore/Configuration/maxAge`` by sweeping it.
        public static let sweep = Options(rawValue: 1 << 1)

        /// Opens the store for reading only: no session is written, logging calls are ignored and
        /// calls that would write throw ``LogStoreError/readonly``.
        public static let readonly = Options(rawValue: 1 << 2)

        /// Each logging call returns only after its event is committed. Slow; for tests and for
        /// processes about to exit.
        ///
        /// The logging calls then block their thread: never make them from Swift concurrency's
        /// cooperative threads (an `async` function or a `Task`), where a blocked thread stalls
        /// every task scheduled on it. From async code use
        /// ``LogStore/log(createdAt:label:level:message:metadata:file:function:line:)``, which
        /// suspends instead.
        public static let synchronous = Options(rawValue: 1 << 3)

        /// Keeps everything in memory; nothing is written to `storeURL`.
        public static let inMemory = Options(rawValue: 1 << 4)

        /// Trades durability for speed (no journal, no fsync, exclusive lock): a crash can corrupt
        /// the store. For bulk imports and demo data only.
        public static let unsafe = Options(rawValue: 1 << 5)
    }
}
