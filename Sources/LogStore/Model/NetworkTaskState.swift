/// Where a network task stands. Stored as its raw value.
public enum NetworkTaskState: Int16, Sendable, Codable, Hashable, CaseIterable {
    /// Created and not finished yet.
    case pending = 0
    /// Finished with a response and no error.
    case success = 1
    /// Finished with an error or an unsuccessful status.
    case failure = 2
}
