import Foundation

/// The change history's settings (``LogStore/Configuration/history``): who this process is, who
/// else writes the store, and when consumed history may go.
///
/// Several processes often write one store (the server, its worker, a nightly job), each an
/// *author*. Every transaction records what it changed under its author's name, and each
/// consumer reads what the others wrote, once and in order, from its own cursor. History is
/// deleted only up to the lowest cursor of the authors that consume it.
public struct HistoryConfiguration: Sendable, Hashable {
    /// How consumed history is cleaned up.
    public enum CleanStrategy: Sendable, Hashable {
        /// Never automatically (the default): only ``LogStore/cleanHistory()`` deletes history.
        case none
        /// At most once per this interval, after a merge.
        case byDuration(Duration)
        /// After every this many merges of this author.
        case everyNMerges(Int)
    }

    /// This process's author name (say `"server"`).
    public var currentAuthor: String
    /// Every author that consumes history (this one included or not): cleanup waits until each
    /// has registered, so history none of them has seen is never deleted early.
    public var allAuthors: Set<String>
    /// Authors that only write (a nightly import): they never merge and never hold cleanup back.
    public var batchAuthors: Set<String>
    /// When consumed history goes.
    public var cleanStrategy: CleanStrategy
    /// Whether this author's own changes are delivered to it too.
    public var includesOwnChanges: Bool

    /// - Parameters:
    ///   - currentAuthor: this process's author name.
    ///   - allAuthors: every author that consumes history; `currentAuthor` is added.
    ///   - batchAuthors: write-only authors.
    ///   - cleanStrategy: `.none` by default: nothing is deleted without asking.
    ///   - includesOwnChanges: deliver this author's own changes too (`false`).
    public init(
        currentAuthor: String, allAuthors: Set<String> = [], batchAuthors: Set<String> = [],
        cleanStrategy: CleanStrategy = .none, includesOwnChanges: Bool = false
    ) {
        self.currentAuthor = currentAuthor
        self.allAuthors = allAuthors.union([currentAuthor])
        self.batchAuthors = batchAuthors
        self.cleanStrategy = cleanStrategy
        self.includesOwnChanges = includesOwnChanges
    }

    /// Whether `author` holds cleanup back (it consumes history and has not retired).
    func isRequired(_ author: String) -> Bool {
        allAuthors.contains(author) && !batchAuthors.contains(author)
    }

    /// The authors whose registration cleanup waits for: every consumer, batch authors aside.
    var requiredAuthors: Set<String> { allAuthors.subtracting(batchAuthors) }
}
