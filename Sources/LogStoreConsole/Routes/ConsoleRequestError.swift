/// Why a request gets no answer but an error status: each case is a status and a message the
/// console sends as JSON (`{"error": "…"}`), for its page to show.
enum ConsoleRequestError: Error, Equatable {
    /// 400: a parameter the route cannot read.
    case badRequest(String)
    /// 401: no token, or a wrong one.
    case unauthorized
    /// 403: what the request names is outside what the console shows.
    case forbidden(String)
    /// 404: no such route, message, task, body or file.
    case notFound(String)
    /// 416: a `Range` past the end.
    case rangeNotSatisfiable(length: Int64)
    /// 421: a `Host` the console does not answer for (DNS rebinding).
    case misdirected(String)
    /// 500: the store failed to answer.
    case failed(String)

    /// The status code sent.
    var status: Int {
        switch self {
        case .badRequest: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .rangeNotSatisfiable: 416
        case .misdirected: 421
        case .failed: 500
        }
    }

    /// The message sent.
    var message: String {
        switch self {
        case .badRequest(let message), .forbidden(let message), .notFound(let message), .misdirected(let message),
            .failed(let message):
            message
        case .unauthorized: "this console needs its access token: open the URL `logstore serve` printed"
        case .rangeNotSatisfiable(let length): "the range is past the end of the \(length) bytes"
        }
    }
}
