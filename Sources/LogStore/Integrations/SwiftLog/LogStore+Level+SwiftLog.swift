#if SwiftLog
public import Logging

extension LogStore.Level {
    /// The store's level for a swift-log level: the same seven, one to one (`.notice` is `.notice`).
    public init(_ level: Logger.Level) {
        switch level {
        case .trace: self = .trace
        case .debug: self = .debug
        case .info: self = .info
        case .notice: self = .notice
        case .warning: self = .warning
        case .error: self = .error
        case .critical: self = .critical
        }
    }
}

extension Logger.Level {
    /// swift-log's level for a store level: the same seven, one to one.
    public init(_ level: LogStore.Level) {
        switch level {
        case .trace: self = .trace
        case .debug: self = .debug
        case .info: self = .info
        case .notice: self = .notice
        case .warning: self = .warning
        case .error: self = .error
        case .critical: self = .critical
        }
    }
}
#endif
