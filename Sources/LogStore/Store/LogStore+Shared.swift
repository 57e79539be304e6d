public import Foundation
import Synchronization

extension LogStore {
    private static let sharedStore = Mutex<LogStore?>(nil)

    /// The process-wide store, for code that cannot have a store passed to it (`nil` until
    /// ``bootstrap(_:)`` or ``bootstrapDefault(appName:options:configuration:)`` sets it, and
    /// again once that store is closed or destroyed, so a later bootstrap takes effect).
    ///
    /// ```swift
    /// // At start-up:
    /// try await LogStore.bootstrapDefault()
    /// // Anywhere:
    /// LogStore.shared?.storeMessage(label: "jobs", level: .info, message: "nightly export done")
    /// ```
    public static var shared: LogStore? {
        sharedStore.withLock { $0 }
    }

    /// Makes `store` the process-wide ``shared`` store. Only the first call takes effect, so a
    /// library cannot swap the application's store underneath it.
    ///
    /// - Returns: whether `store` became the shared store.
    @discardableResult
    public static func bootstrap(_ store: LogStore) -> Bool {
        sharedStore.withLock { shared in
            guard shared == nil else { return false }
            shared = store
            return true
        }
    }

    /// Stops sharing `store` when it is the shared one (it is closing): ``shared`` never hands
    /// out a closed store.
    static func stopSharing(_ store: LogStore) {
        sharedStore.withLock { shared in
            if shared === store { shared = nil }
        }
    }

    /// Opens (creating it when missing) the store at ``defaultStoreURL(appName:environment:)``
    /// and makes it the ``shared`` store; when one is already shared, returns that one.
    ///
    /// - Throws: what ``init(storeURL:options:configuration:)`` throws.
    @discardableResult
    public static func bootstrapDefault(
        appName: String = ProcessInfo.processInfo.processName, options: Options = [.create, .sweep],
        configuration: Configuration = Configuration()
    ) async throws -> LogStore {
        if let shared { return shared }
        let store = try await LogStore(
            storeURL: defaultStoreURL(appName: appName), options: options, configuration: configuration)
        guard bootstrap(store) else {
            // Another caller won the race: keep theirs, close this one.
            try await store.close()
            return shared ?? store
        }
        return store
    }

    /// Where a process keeps its store by default, following the XDG base directory rules:
    /// `$XDG_STATE_HOME/<appName>/logs.logstore`, else `~/.local/state/<appName>/logs.logstore`.
    public static func defaultStoreURL(
        appName: String = ProcessInfo.processInfo.processName,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        let base: URL
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            // The specification says relative paths are invalid and must be ignored.
            base = URL(fileURLWithPath: state, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/state", isDirectory: true)
        }
        let name = appName.isEmpty || appName.contains("/") ? "logstore" : appName
        return base.appendingPathComponent(name, isDirectory: true)
            .appendingPathComponent("logs.logstore", isDirectory: true)
    }
}
