#if Hummingbird
import Foundation

/// A route's error as the store should describe it. The store reads an error through its
/// `NSError` bridge, which on Linux says only "The operation could not be completed" for a
/// plain Swift error (and ignores `LocalizedError`); a server's errors are mostly such. So it
/// is handed an `NSError` already: its type as the domain, what it says of itself as the
/// description.
enum RouteError {
    static func make(_ error: any Error) -> NSError {
        // A real NSError already says what it is.
        if type(of: error) == NSError.self { return error as NSError }
        return NSError(
            domain: String(reflecting: type(of: error)), code: (error as NSError).code,
            userInfo: [NSLocalizedDescriptionKey: String(describing: error)])
    }
}
#endif
