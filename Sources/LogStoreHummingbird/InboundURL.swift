#if Hummingbird
import Hummingbird
import Foundation

/// The URL a request was sent to, as far as the server can tell: `request.uri` holds only the
/// path and query, so the host comes from the authority: HTTP/2's, or HTTP/1's Host header,
/// which swift-http-types moves there.
enum InboundURL {
    static func make(_ request: Request) -> URL? {
        let scheme = request.head.scheme ?? "http"
        let claimed = request.head.authority ?? ""
        // The Host header is the client's to write: anything but a plain host[:port] would let
        // it reshape the URL (a path, a user part), so it is replaced.
        let host = isPlainAuthority(claimed) ? claimed : "unknown-host"
        var target = request.uri.description
        if !target.hasPrefix("/") { target = "/" + target }
        if let url = URL(string: scheme + "://" + host + target) { return url }
        // A target URL(string:) refuses: escape what it has to say rather than drop it.
        let escaped = target.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? "/"
        return URL(string: scheme + "://" + host + escaped)
    }

    private static func isPlainAuthority(_ value: String) -> Bool {
        guard !value.isEmpty, value.utf8.count <= 255 else { return false }
        return value.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "-", ":", "[", "]", "_": true
            default: false
            }
        }
    }
}
#endif
