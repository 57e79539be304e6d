#if Hummingbird
import Hummingbird

/// HTTP fields as the store's header dictionary.
enum HeaderDictionary {
    /// Fields repeated under one name are joined with ", " (RFC 9110 §5.3); the name is kept as
    /// the peer spelled it, since the store compares names case-insensitively.
    static func make(_ fields: HTTPFields) -> [String: String] {
        var headers: [String: String] = [:]
        for field in fields {
            let name = field.name.rawName
            if let earlier = headers[name] {
                headers[name] = earlier + ", " + field.value
            } else {
                headers[name] = field.value
            }
        }
        return headers
    }
}
#endif
