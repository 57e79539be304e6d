import Glibc

/// Why an ``HTTPServer`` could not start: what `logstore serve` prints, so each case says what to
/// change.
enum HTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The host is not an IPv4 or IPv6 address (`127.0.0.1`, `::1`, `[::1]`) or `localhost`.
    case badAddress(String)
    /// Another socket is bound to the address.
    case addressInUse(host: String, port: UInt16)
    /// The address is not one of this machine's.
    case addressNotAvailable(host: String)
    /// Binding the port needs a privilege the process lacks (ports below 1024).
    case permissionDenied(host: String, port: UInt16)
    /// The process or the system has no file descriptor left.
    case tooManyOpenFiles
    /// The C library lacks a call the server needs (named).
    case unsupportedSystem(String)
    /// Another failure of a system call, with its `errno`.
    case system(call: String, code: Int32)

    var description: String {
        switch self {
        case .badAddress(let host):
            return "'\(host)' is not an IP address (use an IPv4 or IPv6 address such as 127.0.0.1 or ::1, or localhost)"
        case .addressInUse(let host, let port):
            return "\(Self.endpoint(host, port)) is already in use: pick another port, or 0 for any free one"
        case .addressNotAvailable(let host):
            return "\(host) is not an address of this machine"
        case .permissionDenied(let host, let port):
            return "not allowed to listen on \(Self.endpoint(host, port)) (ports below 1024 need privileges)"
        case .tooManyOpenFiles:
            return "no file descriptor left to open a socket (raise the open-files limit)"
        case .unsupportedSystem(let call):
            return "this system's C library has no \(call), which the console's server needs"
        case .system(let call, let code):
            return "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }

    /// The error a failed `call` reports, `errno` turned into the case a user can act on.
    static func from(_ error: SocketErrno, call: String, host: String, port: UInt16) -> HTTPServerError {
        switch error.code {
        case EADDRINUSE: return .addressInUse(host: host, port: port)
        case EADDRNOTAVAIL: return .addressNotAvailable(host: host)
        case EACCES, EPERM: return .permissionDenied(host: host, port: port)
        case EMFILE, ENFILE: return .tooManyOpenFiles
        case EAFNOSUPPORT: return .addressNotAvailable(host: host)
        default: return .system(call: call, code: error.code)
        }
    }

    private static func endpoint(_ host: String, _ port: UInt16) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
