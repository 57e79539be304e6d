import Foundation

/// A failure of a network task, reduced to what can be stored and shown: code, domain and a
/// readable description.
public struct NetworkError: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The error code, such as `-1001` (`NSURLErrorTimedOut`).
    public var code: Int
    /// The error domain, such as `"NSURLErrorDomain"`.
    public var domain: String
    /// A readable description of the failure.
    public var description: String

    /// Creates an error from its parts.
    public init(code: Int, domain: String, description: String) {
        self.code = code
        self.domain = domain
        self.description = description
    }

    /// Creates an error from any error, through its `NSError` bridge: `code`, `domain` and
    /// `localizedDescription`. A `URLError` keeps its `NSURLErrorDomain` code; a Swift error that
    /// is not an `NSError` gets the domain and code Foundation derives for it (its type name and
    /// case index).
    public init(_ error: any Error) {
        let bridged = error as NSError
        self.init(code: bridged.code, domain: bridged.domain, description: bridged.localizedDescription)
    }
}
