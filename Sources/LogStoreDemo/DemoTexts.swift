import LogStore

/// The texts of the demo's fictional web shop, one function per component. Each picks a message
/// that fits the level: chatty details for trace and debug, business events for info and
/// notice, trouble for warning, failures with stack-trace-like texts for error and critical.
enum DemoTexts {
    /// How serious a level is, which is what picking a text depends on.
    enum Tier {
        case detail, event, trouble, failure
    }

    static func tier(_ level: LogStore.Level) -> Tier {
        switch level {
        case .trace, .debug: .detail
        case .info, .notice: .event
        case .warning: .trouble
        case .error, .critical: .failure
        }
    }

    /// A Swift-looking error with a few frames, as an unhandled error would be logged.
    static func stackTrace(_ error: String, frames: [String], _ random: inout DemoRandom) -> String {
        var lines = [error]
        for frame in frames {
            lines.append("    at \(frame):\(random.int(20...400)))")
        }
        lines.append("    at NIOPosix.SelectableEventLoop.run() (SelectableEventLoop.swift:\(random.int(500...560)))")
        return lines.joined(separator: "\n")
    }

    static let apiPaths = [
        "/api/v1/orders", "/api/v1/orders/{id}", "/api/v1/products", "/api/v1/products/{id}", "/api/v1/cart",
        "/api/v1/cart/items", "/api/v1/checkout", "/api/v1/users/me", "/api/v1/search", "/api/v1/reviews",
    ]

    static func path(_ random: inout DemoRandom) -> String {
        let template = random.pick(apiPaths)
        if template.hasSuffix("{id}") {
            return template.replacingOccurrences(of: "{id}", with: "\(random.int(1000...999_999))")
        }
        if template == "/api/v1/search" {
            return template + "?q=" + random.pick(["red+shoes", "usb-c+cable", "coffee", "desk+lamp", "tent"])
        }
        if template == "/api/v1/products" { return template + "?page=\(random.int(1...40))" }
        return template
    }

    static func http(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let method = random.pick(["GET", "GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH"])
        let path = path(&random)
        let requestID = random.requestID()
        var metadata: LogStore.Metadata = ["request_id": .string(requestID), "method": .string(method)]
        if random.chance(0.7) { metadata["user_id"] = .string(random.userID()) }
        if random.chance(0.25) {
            metadata["client"] = ["ip": .string(random.ipAddress()), "user_agent": .string(random.userAgent())]
        }
        switch tier(level) {
        case .detail:
            if level == .trace {
                return DemoLine(text: "route matched \(method) \(path) → \(random.pick(["OrdersController", "ProductsController", "CartController", "UsersController"]))", metadata: metadata)
            }
            return DemoLine(
                text: "request started \(method) \(path) (\(random.int(3...24)) headers, \(random.int(0...4096)) bytes body)",
                metadata: metadata)
        case .event:
            let ms = random.milliseconds(typical: 18)
            let status = method == "POST" ? random.pick(["200", "201"]) : (method == "DELETE" ? "204" : "200")
            metadata["status"] = .string(status)
            metadata["duration_ms"] = .string("\(ms)")
            if level == .notice {
                metadata["order_id"] = .string(random.orderID())
                return DemoLine(text: "POST /api/v1/checkout 201 \(random.milliseconds(typical: 240)) ms: order placed", metadata: metadata)
            }
            return DemoLine(text: "\(method) \(path) \(status) \(ms) ms", metadata: metadata)
        case .trouble:
            let status = random.pick(["400", "401", "403", "404", "404", "409", "422", "429"])
            metadata["status"] = .string(status)
            if random.chance(0.3) {
                let ms = random.int(1500...9000)
                metadata["status"] = "200"
                metadata["duration_ms"] = .string("\(ms)")
                return DemoLine(text: "slow request: \(method) \(path) 200 \(ms) ms (threshold 1000 ms)", metadata: metadata)
            }
            return DemoLine(text: "\(method) \(path) \(status) \(random.milliseconds(typical: 6)) ms", metadata: metadata)
        case .failure:
            metadata["status"] = "500"
            metadata["trace_id"] = .string(random.traceID())
            if level == .critical {
                return DemoLine(
                    text: "health check failing: \(random.int(2...3)) of 4 dependencies down (postgres, redis)",
                    metadata: ["checks": ["postgres", "redis", "s3", "inventory-grpc"], "failing": ["postgres", "redis"]])
            }
            let error = random.pick([
                "DecodingError.keyNotFound(\"shippingAddress\")", "PostgresError.server(53300: too many connections)",
                "HTTPClientError.deadlineExceeded", "CartError.itemOutOfStock(sku: \"SKU-\(random.int(1000...9999))\")",
            ])
            let text = stackTrace(
                "\(method) \(path) 500: unhandled error \(error)",
                frames: ["CheckoutController.submit(_:) (CheckoutController.swift", "OrderService.place(_:) (OrderService.swift",
                         "Router.respond(to:) (Router.swift"], &random)
            return DemoLine(text: text, metadata: metadata, function: "respond(to:)")
        }
    }

    static func httpClient(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let host = random.pick(["api.stripe.example", "maps.example.com", "hooks.slack.example", "inventory.internal", "geoip.example.net"])
        let url = "https://\(host)/v1/\(random.pick(["charges", "geocode", "messages", "stock", "lookup"]))"
        let metadata: LogStore.Metadata = ["host": .string(host), "request_id": .string(random.requestID())]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "connection pool for \(host): \(random.int(0...8)) idle, \(random.int(1...16)) leased", metadata: metadata)
        case .event:
            return DemoLine(text: "POST \(url) → 200 in \(random.milliseconds(typical: 140)) ms", metadata: metadata)
        case .trouble:
            let attempt = random.int(1...2)
            return DemoLine(
                text: "POST \(url) → 503 in \(random.milliseconds(typical: 900)) ms; retrying (attempt \(attempt + 1)/3) in \(attempt * 200) ms",
                metadata: metadata.merging(["retry_delays_ms": ["200", "400", "800"]]) { $1 })
        case .failure:
            return DemoLine(
                text: "POST \(url) failed after 3 attempts: HTTPClientError.deadlineExceeded (10000 ms)", metadata: metadata)
        }
    }

    static func auth(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let user = random.userID()
        var metadata: LogStore.Metadata = ["user_id": .string(user), "ip": .string(random.ipAddress())]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "session token validated for \(user) (expires in \(random.int(1...59)) min)", metadata: metadata)
        case .event:
            if level == .notice {
                metadata["roles"] = ["admin", "support"]
                return DemoLine(text: "admin \(user) impersonated user \(random.userID()) (ticket SUP-\(random.int(1000...9999)))", metadata: metadata)
            }
            metadata["method"] = .string(random.pick(["password", "password+totp", "oauth:google", "passkey"]))
            return DemoLine(text: "login succeeded for \(random.email())", metadata: metadata)
        case .trouble:
            let attempts = random.int(2...6)
            metadata["attempts"] = .string("\(attempts)")
            return DemoLine(text: "login failed for \(random.email()): invalid password (\(attempts) attempts in 10 min)", metadata: metadata, function: "login(_:)")
        case .failure:
            return DemoLine(
                text: "JWT verification failed: signature does not match key kid=\(random.hex(8)); rejecting all tokens from issuer https://id.example.com",
                metadata: metadata)
        }
    }

    static func ratelimit(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let ip = random.ipAddress()
        let metadata: LogStore.Metadata = ["ip": .string(ip), "bucket": .string(random.pick(["api", "login", "search"]))]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "bucket for \(ip): \(random.int(0...100)) of 100 tokens left", metadata: metadata)
        case .event:
            return DemoLine(text: "raised limit for API key key_\(random.hex(6)) to 600 req/min", metadata: metadata)
        case .trouble, .failure:
            return DemoLine(text: "client \(ip) exceeded 100 req/min on /api/v1/search: throttled for 30 s", metadata: metadata)
        }
    }

    static func websocket(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let connection = "ws-" + random.hex(6)
        let metadata: LogStore.Metadata = ["connection": .string(connection), "user_id": .string(random.userID())]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "ping/pong \(connection): rtt \(random.milliseconds(typical: 35)) ms", metadata: metadata)
        case .event:
            return DemoLine(text: "client connected \(connection) (\(random.int(80...900)) open)", metadata: metadata)
        case .trouble:
            return DemoLine(text: "client disconnected \(connection): ping timeout after 30 s", metadata: metadata)
        case .failure:
            return DemoLine(text: "broadcast to channel orders.updates failed: send buffer full for \(random.int(3...40)) clients", metadata: metadata)
        }
    }

    static func grpc(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let method = random.pick(["/inventory.v1.Stock/Reserve", "/inventory.v1.Stock/Release", "/pricing.v2.Quotes/Get"])
        let metadata: LogStore.Metadata = ["rpc": .string(method), "deadline_ms": "500"]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "\(method) request sent (\(random.int(40...900)) bytes)", metadata: metadata)
        case .event:
            return DemoLine(text: "\(method) OK \(random.milliseconds(typical: 4)) ms", metadata: metadata)
        case .trouble:
            return DemoLine(text: "\(method) DEADLINE_EXCEEDED after 500 ms; retrying on another replica", metadata: metadata)
        case .failure:
            return DemoLine(text: "\(method) UNAVAILABLE: connection refused (inventory-\(random.int(0...2)).internal:50051)", metadata: metadata)
        }
    }
}
