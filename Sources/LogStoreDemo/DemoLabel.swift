import LogStore

/// One generated message before it gets its time: what a component of a fictional web shop
/// would log.
struct DemoLine {
    var text: String
    var metadata: LogStore.Metadata? = nil
    /// The function that "logged" it; the label's default when `nil`.
    var function: String? = nil
}

/// The components of the fictional application the demo logs for, with how much each logs
/// and where in the source its messages come from.
enum DemoLabel: String, CaseIterable {
    case http
    case httpClient = "http.client"
    case db
    case dbPool = "db.pool"
    case auth
    case cache
    case queue
    case payments
    case billing
    case email
    case notifications
    case search
    case storage
    case images
    case scheduler
    case metrics
    case grpc
    case websocket
    case ratelimit
    case config

    /// Relative share of all messages.
    var weight: Int {
        switch self {
        case .http: 22
        case .db: 14
        case .cache: 10
        case .queue: 7
        case .auth: 6
        case .httpClient: 5
        case .search, .metrics, .grpc: 4
        case .dbPool, .payments, .notifications, .storage, .websocket: 3
        case .billing, .email, .images, .scheduler, .ratelimit: 2
        case .config: 1
        }
    }

    /// The source file, default function and a base line number.
    var source: (file: String, function: String, line: Int) {
        switch self {
        case .http: ("App/HTTP/RequestLogger.swift", "handle(_:next:)", 48)
        case .httpClient: ("App/HTTP/OutboundClient.swift", "execute(_:deadline:)", 112)
        case .db: ("App/Database/PostgresConnection.swift", "query(_:binds:)", 203)
        case .dbPool: ("App/Database/ConnectionPool.swift", "leaseConnection()", 77)
        case .auth: ("App/Auth/SessionAuthenticator.swift", "authenticate(_:)", 64)
        case .cache: ("App/Cache/RedisCache.swift", "get(_:as:)", 91)
        case .queue: ("App/Jobs/JobQueue.swift", "run(_:)", 140)
        case .payments: ("App/Payments/PaymentService.swift", "charge(_:for:)", 156)
        case .billing: ("App/Billing/InvoiceGenerator.swift", "generate(for:)", 58)
        case .email: ("App/Mail/SMTPMailer.swift", "send(_:)", 83)
        case .notifications: ("App/Notifications/PushService.swift", "deliver(_:to:)", 101)
        case .search: ("App/Search/SearchIndex.swift", "query(_:filters:)", 120)
        case .storage: ("App/Storage/ObjectStore.swift", "put(_:key:)", 66)
        case .images: ("App/Media/ImageResizer.swift", "resize(_:to:)", 42)
        case .scheduler: ("App/Jobs/Scheduler.swift", "tick()", 35)
        case .metrics: ("App/Observability/MetricsExporter.swift", "flush()", 29)
        case .grpc: ("App/RPC/InventoryClient.swift", "call(_:request:)", 88)
        case .websocket: ("App/Realtime/WebSocketHub.swift", "onEvent(_:)", 71)
        case .ratelimit: ("App/HTTP/RateLimiter.swift", "check(_:)", 54)
        case .config: ("App/Config/ConfigLoader.swift", "reload()", 22)
        }
    }

    /// A message of this component at `level`.
    func line(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        switch self {
        case .http: DemoTexts.http(level, &random)
        case .httpClient: DemoTexts.httpClient(level, &random)
        case .db: DemoTexts.db(level, &random)
        case .dbPool: DemoTexts.dbPool(level, &random)
        case .auth: DemoTexts.auth(level, &random)
        case .cache: DemoTexts.cache(level, &random)
        case .queue: DemoTexts.queue(level, &random)
        case .payments: DemoTexts.payments(level, &random)
        case .billing: DemoTexts.billing(level, &random)
        case .email: DemoTexts.email(level, &random)
        case .notifications: DemoTexts.notifications(level, &random)
        case .search: DemoTexts.search(level, &random)
        case .storage: DemoTexts.storage(level, &random)
        case .images: DemoTexts.images(level, &random)
        case .scheduler: DemoTexts.scheduler(level, &random)
        case .metrics: DemoTexts.metrics(level, &random)
        case .grpc: DemoTexts.grpc(level, &random)
        case .websocket: DemoTexts.websocket(level, &random)
        case .ratelimit: DemoTexts.ratelimit(level, &random)
        case .config: DemoTexts.config(level, &random)
        }
    }
}
