import Foundation
import LogStore

/// One network exchange of the demo, ready to be recorded through ``NetworkLogger`` or
/// `storeRequest`.
struct DemoTask {
    var id: UUID
    var type: NetworkTaskType = .data
    /// The label of its technical message (the component that made the call).
    var label: String
    var request: NetworkRequest
    var response: NetworkResponse?
    var responseBody: Data?
    var error: URLError?
    var metrics: NetworkMetrics?
    var createdAt: Date
    var duration: TimeInterval
    var taskDescription: String?
    /// Why decoding the response failed, when it did.
    var decodingError: DemoDecodingError?
    /// Recorded through a ``NetworkLogger`` (created, progress, data, metrics, completed) rather
    /// than with one `storeRequest` call.
    var usesLogger: Bool
    /// Created and never completed: still running when the demo's session ended.
    var isPending = false
    /// For a body streamed past the store's size limit: the bytes that "arrived" (only the
    /// count is stored).
    var streamedSize: Int?

    /// Whether the store will count it as failed.
    var isFailure: Bool {
        if isPending { return false }
        return error != nil || !(response?.isSuccess ?? false)
    }
}

/// A response the caller could not decode.
struct DemoDecodingError: Error, CustomStringConvertible {
    var description: String
}

/// A server the demo's application talks to, and how its connections behave.
struct DemoHost {
    var name: String
    var port: Int? = nil
    var address: String
    var networkProtocol = "h2"
    var tlsVersion: String? = "TLS 1.3"
    var cipherSuite: String? = "TLS_AES_128_GCM_SHA256"
    /// Round trip, in milliseconds.
    var roundTrip: Double
    /// Transfer speed, in bytes per millisecond.
    var bytesPerMillisecond: Double
    var server: String

    static let catalog = DemoHost(name: "catalog.shop.internal", address: "10.12.4.21", roundTrip: 0.6, bytesPerMillisecond: 60_000, server: "envoy")
    static let storefront = DemoHost(name: "www.shop.example", address: "203.0.113.10", roundTrip: 7, bytesPerMillisecond: 10_000, server: "nginx")
    static let search = DemoHost(name: "search.shop.internal", address: "10.12.4.35", roundTrip: 0.7, bytesPerMillisecond: 60_000, server: "envoy")
    static let inventory = DemoHost(
        name: "inventory.shop.internal", port: 8443, address: "10.12.6.9", networkProtocol: "http/1.1",
        roundTrip: 0.9, bytesPerMillisecond: 40_000, server: "inventory/2.8.1")
    static let flags = DemoHost(name: "flags.example.com", address: "203.0.113.40", roundTrip: 18, bytesPerMillisecond: 4_000, server: "cloudflare")
    static let auth = DemoHost(name: "auth.example.com", address: "203.0.113.7", roundTrip: 22, bytesPerMillisecond: 4_000, server: "nginx")
    static let payments = DemoHost(
        name: "api.payments.example.net", address: "198.51.100.23", networkProtocol: "http/1.1", tlsVersion: "TLS 1.2",
        cipherSuite: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", roundTrip: 31, bytesPerMillisecond: 3_000, server: "nginx")
    static let cdn = DemoHost(name: "cdn.shop.example", address: "2001:db8:85a3::8a2e:370:7334", roundTrip: 9, bytesPerMillisecond: 12_000, server: "cloudfront")
    static let metrics = DemoHost(name: "px.metrics.example", address: "198.51.100.90", roundTrip: 14, bytesPerMillisecond: 5_000, server: "pixel")
    static let mail = DemoHost(name: "api.mail.example.com", address: "203.0.113.88", roundTrip: 27, bytesPerMillisecond: 3_000, server: "nginx")
    static let reports = DemoHost(name: "reports.shop.internal", address: "10.12.8.3", roundTrip: 0.8, bytesPerMillisecond: 25_000, server: "gunicorn")
    static let objects = DemoHost(name: "objects.example.net", address: "198.51.100.150", networkProtocol: "http/1.1", roundTrip: 12, bytesPerMillisecond: 8_000, server: "AmazonS3")

    /// `https://name[:port]`.
    var origin: String {
        "https://\(name)" + (port.map { ":\($0)" } ?? "")
    }
}

/// Makes the demo's network tasks: calls of a web shop's backend to its own services (catalog,
/// search, inventory, reports), to third parties (payments, identity, feature flags, mail) and
/// to its CDN, with the statuses, failures and timings such calls have.
///
/// The first tasks go through a fixed showcase (a catalog page with credentials, each image
/// format, a timeout, an export, a server error…) so even a small demo has every kind; after
/// that endpoints are picked by weight.
struct DemoNetworkGenerator {
    private var random: DemoRandom
    private var catalog: DemoCatalog
    private var generated = 0
    private var videos = 0
    /// The service token the backend sends (redacted by the store).
    private let serviceToken: String
    private let clientIP: String

    enum Endpoint: CaseIterable {
        case catalogPage, productDetail, categories, flags, cart, addToCart, createOrder, charge, token, search
        case productImage, trackingPixel, spinner, inventory, mail, ordersExport, salesReport, receiptUpload, promoVideo

        /// Relative share of calls.
        var weight: Int {
            switch self {
            case .catalogPage: 170
            case .productDetail: 140
            case .categories: 50
            case .flags: 90
            case .cart: 60
            case .addToCart: 45
            case .createOrder: 30
            case .charge: 30
            case .token: 30
            case .search: 80
            case .productImage: 90
            case .trackingPixel: 30
            case .spinner: 8
            case .inventory: 60
            case .mail: 25
            case .ordersExport: 6
            case .salesReport: 3
            case .receiptUpload: 10
            case .promoVideo: 1
            }
        }
    }

    /// The first tasks, in order, with the roll that picks their outcome.
    static let showcase: [(Endpoint, Double)] = [
        (.catalogPage, 0.1), (.productImage, 0.1), (.charge, 0.97), (.ordersExport, 0.5), (.productImage, 0.6),
        (.trackingPixel, 0.1), (.createOrder, 0.92), (.token, 0.1), (.search, 0.95), (.receiptUpload, 0.1),
        (.productDetail, 0.1), (.promoVideo, 0.1), (.inventory, 0.97), (.productImage, 0.85), (.flags, 0.99),
        (.addToCart, 0.9), (.salesReport, 0.1), (.cart, 0.1),
    ]
    private static let endpoints = Endpoint.allCases
    private static let weights = Endpoint.allCases.map(\.weight)
    /// A promotional video is streamed past the body size limit; a few are enough.
    private static let maximumVideos = 3

    init(seed: UInt64) {
        random = DemoRandom(seed: seed ^ 0x6E65_7477_6F72_6B73)
        catalog = DemoCatalog(&random)
        serviceToken = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9." + random.base64URL(48) + "." + random.base64URL(43)
        clientIP = random.ipAddress()
    }

    /// The next task, started at `createdAt`; `duringOutage`, most likely a failure of the
    /// catalog or the inventory (their database is gone): a 503, a timeout or a refused
    /// connection.
    mutating func next(at createdAt: Date, duringOutage: Bool = false) -> DemoTask {
        defer { generated += 1 }
        var endpoint: Endpoint
        var roll: Double
        if generated < Self.showcase.count {
            (endpoint, roll) = Self.showcase[generated]
        } else if duringOutage, random.chance(0.75) {
            // Both answer 503 from 0.94 on (the inventory from 0.9), then time out or refuse.
            endpoint = random.pick([.catalogPage, .catalogPage, .inventory])
            roll = random.double(0.94..<1)
        } else {
            endpoint = Self.endpoints[random.weightedIndex(Self.weights)]
            roll = random.double(0..<1)
            if endpoint == .promoVideo, videos >= Self.maximumVideos { endpoint = .catalogPage }
        }
        if endpoint == .promoVideo { videos += 1 }
        var task = make(endpoint, roll: roll, at: createdAt)
        // The first catalog page and image go through the logger, so the summary can name them.
        if generated < 2 { task.usesLogger = true }
        return task
    }

    /// A task still running when the session ends: a large export halfway through, or a slow
    /// search.
    mutating func pending(at createdAt: Date, large: Bool) -> DemoTask {
        var task = make(large ? .ordersExport : .search, roll: 0.1, at: createdAt)
        task.isPending = true
        task.usesLogger = true
        task.response = nil
        task.metrics = nil
        return task
    }

    // MARK: Endpoints

    private mutating func make(_ endpoint: Endpoint, roll: Double, at start: Date) -> DemoTask {
        let user = random.userID()
        switch endpoint {
        case .catalogPage:
            let page = random.int(1...8)
            let url = "\(DemoHost.catalog.origin)/v1/products?page=\(page)&per_page=\(DemoCatalog.pageSize)"
            var headers = apiHeaders(user: user)
            if roll >= 0.86, roll < 0.94 { headers["If-None-Match"] = #"W/"p\#(page)-412""# }
            if roll < 0.86 {
                return exchange(.catalog, "GET", url, headers: headers, status: 200, body: catalog.page(page), server: 18, at: start,
                                extraResponseHeaders: ["ETag": #"W/"p\#(page)-412""#, "Cache-Control": "private, max-age=60"])
            }
            if roll < 0.94 {
                return exchange(.catalog, "GET", url, headers: headers, status: 304, body: nil, server: 4, at: start,
                                extraResponseHeaders: ["ETag": #"W/"p\#(page)-412""#])
            }
            if roll < 0.97 {
                return exchange(.catalog, "GET", url, headers: headers, status: 503, body: Self.problem(503, "catalog database unavailable"),
                                contentType: "application/problem+json", server: 2, at: start, extraResponseHeaders: ["Retry-After": "5"])
            }
            return timeout(.catalog, "GET", url, headers: headers, after: 10, at: start)

        case .productDetail:
            let product = random.pick(catalog.products)
            let url = "\(DemoHost.catalog.origin)/v1/products/\(product.sku)"
            let headers = apiHeaders(user: user)
            if roll < 0.92 {
                return exchange(.catalog, "GET", url, headers: headers, status: 200, body: catalog.detail(product), server: 9, at: start)
            }
            if roll < 0.97 {
                let missing = "\(DemoHost.catalog.origin)/v1/products/SKU-\(random.int(90_000...99_999))"
                return exchange(.catalog, "GET", missing, headers: headers, status: 404, body: Self.problem(404, "no such product"),
                                contentType: "application/problem+json", server: 3, at: start)
            }
            return exchange(.catalog, "GET", url, headers: headers, status: 500,
                            body: Self.problem(500, "unexpected error; see trace \(random.traceID())"),
                            contentType: "application/problem+json", server: 45, at: start)

        case .categories:
            return exchange(.catalog, "GET", "\(DemoHost.catalog.origin)/v1/categories", headers: apiHeaders(user: nil), status: 200,
                            body: DemoCatalog.categoriesBody, server: 3, at: start, extraResponseHeaders: ["Cache-Control": "public, max-age=300"])

        case .flags:
            let url = "https://\(DemoHost.flags.name)/api/v2/flags?environment=production&client=shop-api"
            var headers = ["Accept": "application/json", "Authorization": "Bearer " + serviceToken, "User-Agent": Self.userAgent]
            headers["X-Request-ID"] = random.requestID()
            if roll < 0.97 {
                return exchange(.flags, "GET", url, headers: headers, status: 200, body: DemoCatalog.flagsBody, server: 12, at: start,
                                label: "config")
            }
            let html = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n"
                + "<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n"
            return exchange(.flags, "GET", url, headers: headers, status: 502, body: Data(html.utf8), contentType: "text/html",
                            server: 30, at: start, label: "config")

        case .cart:
            var headers = apiHeaders(user: user)
            headers["Cookie"] = "session=\(random.base64URL(32)); cart_id=c_\(random.hex(10)); consent=analytics"
            let url = "https://\(DemoHost.storefront.name)/legacy/api/cart"
            if roll < 0.95 {
                return exchange(.storefront, "GET", url, headers: headers, status: 200, body: catalog.cart(user: user, &random),
                                server: 22, at: start)
            }
            return exchange(.storefront, "GET", url, headers: headers, status: 401, body: Data(#"{"error":"invalid_token","error_description":"the access token expired"}"#.utf8),
                            server: 2, at: start, extraResponseHeaders: ["WWW-Authenticate": #"Bearer error="invalid_token""#])

        case .addToCart:
            let product = random.pick(catalog.products)
            var headers = apiHeaders(user: user)
            headers["Content-Type"] = "application/json"
            let body = Data(#"{"sku":"\#(product.sku)","quantity":\#(random.int(1...3))}"#.utf8)
            let url = "\(DemoHost.catalog.origin)/v1/carts/\(user)/items"
            if roll < 0.85 {
                return exchange(.catalog, "POST", url, headers: headers, requestBody: body, status: 201,
                                body: catalog.cart(user: user, &random), server: 16, at: start)
            }
            if roll < 0.95 {
                return exchange(.catalog, "POST", url, headers: headers, requestBody: body, status: 409,
                                body: Self.problem(409, "\(product.sku) is out of stock"), contentType: "application/problem+json",
                                server: 8, at: start)
            }
            return exchange(.catalog, "POST", url, headers: headers, requestBody: Data(#"{"sku":"\#(product.sku)","quantity":0}"#.utf8),
                            status: 422, body: Self.problem(422, "quantity must be between 1 and 10"),
                            contentType: "application/problem+json", server: 3, at: start)

        case .createOrder:
            let orderID = random.orderID()
            let (request, response) = catalog.order(id: orderID, user: user, &random)
            var headers = apiHeaders(user: user)
            headers["Content-Type"] = "application/json"
            headers["Idempotency-Key"] = random.hex(32)
            let url = "\(DemoHost.catalog.origin)/v1/orders"
            if roll < 0.9 {
                return exchange(.catalog, "POST", url, headers: headers, requestBody: request, status: 201, body: response, server: 85,
                                at: start, extraResponseHeaders: ["Location": "/v1/orders/\(orderID)"])
            }
            if roll < 0.95 {
                return exchange(.catalog, "POST", url, headers: headers, requestBody: request, status: 500,
                                body: Self.problem(500, "could not reserve stock: deadlock detected"),
                                contentType: "application/problem+json", server: 1200, at: start)
            }
            return exchange(.catalog, "POST", url, headers: headers, requestBody: request, status: 503,
                            body: Self.problem(503, "orders service is shedding load"), contentType: "application/problem+json",
                            server: 1, at: start, extraResponseHeaders: ["Retry-After": "30"])

        case .charge:
            let amount = random.int(5...900) * 100 + random.pick([0, 49, 90, 99])
            let headers = [
                "Authorization": "Bearer sk_live_" + random.base64URL(32), "Content-Type": "application/json",
                "Accept": "application/json", "Idempotency-Key": random.hex(32), "User-Agent": Self.userAgent,
            ]
            let order = random.orderID()
            let body = Data(#"{"amount":\#(amount),"currency":"eur","source":"tok_\#(random.hex(24))","description":"Order \#(order)","metadata":{"order_id":"\#(order)","user_id":"\#(user)"}}"#.utf8)
            let url = "https://\(DemoHost.payments.name)/v2/charges"
            if roll < 0.8 {
                let charge = #"{"id":"ch_\#(random.hex(14))","object":"charge","amount":\#(amount),"currency":"eur","status":"succeeded","#
                    + #""paid":true,"captured":true,"metadata":{"order_id":"\#(order)"},"risk":{"level":"normal","score":\#(random.int(1...60))}}"#
                return exchange(.payments, "POST", url, headers: headers, requestBody: body, status: 201, body: Data(charge.utf8),
                                server: 320, at: start, label: "payments")
            }
            if roll < 0.9 {
                let declined = #"{"error":{"type":"card_error","code":"card_declined","decline_code":"\#(random.pick(["insufficient_funds", "do_not_honor", "expired_card"]))","message":"Your card was declined."}}"#
                return exchange(.payments, "POST", url, headers: headers, requestBody: body, status: 402, body: Data(declined.utf8),
                                server: 280, at: start, label: "payments")
            }
            if roll < 0.95 {
                return exchange(.payments, "POST", url, headers: headers, requestBody: body, status: 502,
                                body: Data(#"{"error":{"type":"api_error","message":"upstream processor unavailable"}}"#.utf8),
                                server: 2900, at: start, label: "payments")
            }
            return timeout(.payments, "POST", url, headers: headers, requestBody: body, after: 30, at: start, label: "payments")

        case .token:
            let headers = ["Content-Type": "application/json", "Accept": "application/json", "User-Agent": Self.userAgent]
            let body = Data(#"{"grant_type":"refresh_token","client_id":"shop-api","refresh_token":"rt_\#(random.base64URL(40))"}"#.utf8)
            let url = "https://\(DemoHost.auth.name)/oauth/token"
            if roll < 0.95 {
                let token = #"{"access_token":"\#(random.base64URL(64))","token_type":"Bearer","expires_in":3600,"#
                    + #""refresh_token":"rt_\#(random.base64URL(40))","scope":"catalog orders payments"}"#
                return exchange(.auth, "POST", url, headers: headers, requestBody: body, status: 200, body: Data(token.utf8), server: 40,
                                at: start, label: "auth",
                                extraResponseHeaders: ["Set-Cookie": "idp_session=\(random.base64URL(24)); Secure; HttpOnly; SameSite=Lax",
                                                       "Cache-Control": "no-store"])
            }
            return exchange(.auth, "POST", url, headers: headers, requestBody: body, status: 400,
                            body: Data(#"{"error":"invalid_grant","error_description":"refresh token revoked"}"#.utf8), server: 12,
                            at: start, label: "auth")

        case .search:
            let term = random.pick(DemoCatalog.searchTerms)
            let query = term.replacingOccurrences(of: " ", with: "+")
            let url = "\(DemoHost.search.origin)/v1/search?q=\(query)&limit=20"
            let headers = apiHeaders(user: user)
            if roll < 0.9 {
                return exchange(.search, "GET", url, headers: headers, status: 200, body: catalog.search(term), server: 55, at: start,
                                label: "search")
            }
            if roll < 0.94 {
                return exchange(.search, "GET", url, headers: headers, status: 503, body: Self.problem(503, "index is rebuilding"),
                                contentType: "application/problem+json", server: 1, at: start, label: "search",
                                extraResponseHeaders: ["Retry-After": "10"])
            }
            if roll < 0.97 {
                let page = "<!DOCTYPE html>\n<html><head><title>Maintenance</title></head>\n"
                    + "<body><h1>Search is down for maintenance</h1><p>Back at 04:00 UTC.</p></body></html>\n"
                var task = exchange(.search, "GET", url, headers: headers, status: 200, body: Data(page.utf8), contentType: "text/html",
                                    server: 2, at: start, label: "search")
                task.decodingError = DemoDecodingError(
                    description: #"dataCorrupted: the given data was not valid JSON: unexpected character '<' at offset 0 (SearchResponse)"#)
                task.usesLogger = true
                return task
            }
            return timeout(.search, "GET", url, headers: headers, after: 5, at: start, label: "search")

        case .productImage:
            // The popular products' images are fetched again and again.
            let product = catalog.products[random.int(0...(DemoCatalog.productsWithImages - 1))]
            let (size, format) = roll < 0.5 ? ((200, 150), "png") : roll < 0.75 ? ((800, 600), "jpg") : ((200, 150), "png")
            let path = "/img/\(product.sku)/\(size.0)x\(size.1).\(format)"
            let headers = ["Accept": "image/avif,image/webp,image/*", "User-Agent": Self.userAgent]
            if roll < 0.95 {
                let body = catalog.image(product.sku + "." + format, width: size.0, height: size.1, &random)
                var task = exchange(.cdn, "GET", "https://\(DemoHost.cdn.name)\(path)", headers: headers, status: 200, body: body,
                                    contentType: format == "png" ? "image/png" : "image/jpeg", server: 6, at: start, label: "images",
                                    extraResponseHeaders: ["Cache-Control": "public, max-age=31536000, immutable", "Age": "\(random.int(0...80_000))"])
                if roll >= 0.75 { redirect(&task, from: "http://\(DemoHost.cdn.name)\(path)") }
                return task
            }
            return exchange(.cdn, "GET", "https://\(DemoHost.cdn.name)/img/\(product.sku)/1200x900.webp", headers: headers, status: 404,
                            body: Data("<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code></Error>".utf8), contentType: "application/xml",
                            server: 4, at: start, label: "images")

        case .trackingPixel:
            let url = "https://\(DemoHost.metrics.name)/px.gif?e=\(random.pick(["view", "add_to_cart", "checkout"]))&sku=\(random.pick(catalog.products).sku)"
            return exchange(.metrics, "GET", url, headers: ["User-Agent": Self.userAgent], status: 200,
                            body: catalog.image("px.gif", width: 1, height: 1, &random), contentType: "image/gif", server: 2, at: start,
                            label: "metrics", extraResponseHeaders: ["Cache-Control": "no-store"])

        case .spinner:
            return exchange(.cdn, "GET", "https://\(DemoHost.cdn.name)/static/spinner-32.gif", headers: ["User-Agent": Self.userAgent],
                            status: 200, body: catalog.image("spinner.gif", width: 32, height: 32, &random), contentType: "image/gif",
                            server: 3, at: start, label: "images")

        case .inventory:
            let product = random.pick(catalog.products)
            let url = "\(DemoHost.inventory.origin)/v1/stock/\(product.sku)"
            let headers = apiHeaders(user: nil)
            if roll < 0.9 {
                let body = #"{"sku":"\#(product.sku)","available":\#(product.stock),"reserved":\#(random.int(0...12)),"warehouse":"\#(random.pick(["LYS-1", "AMS-2", "FRA-1"]))"}"#
                return exchange(.inventory, "GET", url, headers: headers, status: 200, body: Data(body.utf8), server: 4, at: start,
                                label: "grpc")
            }
            if roll < 0.95 {
                return exchange(.inventory, "GET", url, headers: headers, status: 503, body: Self.problem(503, "warehouse sync in progress"),
                                contentType: "application/problem+json", server: 1, at: start, label: "grpc")
            }
            return failure(.inventory, "GET", url, headers: headers, error: .cannotConnectToHost,
                           "Could not connect to the server.", after: 0.004, at: start, label: "grpc")

        case .mail:
            let headers = [
                "Authorization": "Bearer SG." + random.base64URL(22) + "." + random.base64URL(43), "Content-Type": "application/json",
                "User-Agent": Self.userAgent,
            ]
            let body = #"{"personalizations":[{"to":[{"email":"\#(random.email())"}]}],"from":{"email":"orders@shop.example"},"#
                + #""template_id":"d-\#(random.pick(["order-confirmation", "shipping-update", "password-reset"]))","#
                + #""dynamic_template_data":{"order_id":"\#(random.orderID())","first_name":"\#(random.pick(["Ada", "Grace", "Alan", "Katherine"]))"}}"#
            let url = "https://\(DemoHost.mail.name)/v3/mail/send"
            if roll < 0.9 {
                return exchange(.mail, "POST", url, headers: headers, requestBody: Data(body.utf8), status: 202, body: nil, server: 60,
                                at: start, label: "email", extraResponseHeaders: ["X-Message-Id": random.base64URL(22)])
            }
            return exchange(.mail, "POST", url, headers: headers, requestBody: Data(body.utf8), status: 429,
                            body: Data(#"{"errors":[{"message":"too many requests","field":null}]}"#.utf8), server: 5, at: start,
                            label: "email", extraResponseHeaders: ["Retry-After": "60", "X-RateLimit-Remaining": "0"])

        case .ordersExport:
            // One file per day of the last week; its size depends on the day (200 KiB to 2 MiB).
            let daysAgo = random.int(1...7)
            let day = Self.day(start.addingTimeInterval(-Double(daysAgo) * 86_400))
            let size = 200 * 1024 + (daysAgo * 271_828) % (1800 * 1024)
            let body = catalog.ordersCSV(day: day, size: size, &random)
            var task = exchange(.reports, "GET", "\(DemoHost.reports.origin)/v1/exports/orders.csv?date=\(day)",
                                headers: ["Accept": "text/csv", "Authorization": "Bearer " + serviceToken, "User-Agent": Self.userAgent],
                                status: 200, body: body, contentType: "text/csv", server: 900, at: start, label: "billing",
                                extraResponseHeaders: ["Content-Disposition": "attachment; filename=\"orders-\(day).csv\""])
            task.type = .download
            task.usesLogger = true
            task.taskDescription = "nightly orders export for \(day)"
            return task

        case .salesReport:
            let month = Self.day(start.addingTimeInterval(-Double(random.int(20...80)) * 86_400)).prefix(7)
            // 250 to 700 KiB: large enough to be a file, small enough to scan quickly for secrets.
            let size = 250 * 1024 + (Int(month.suffix(2)) ?? 1) * 37 * 1024
            let body = catalog.salesReport(month: String(month), size: size, &random)
            return exchange(.reports, "GET", "\(DemoHost.reports.origin)/v1/reports/sales?month=\(month)&format=json",
                            headers: ["Accept": "application/json", "Authorization": "Bearer " + serviceToken, "User-Agent": Self.userAgent],
                            status: 200, body: body, server: 1500, at: start, label: "billing")

        case .receiptUpload:
            let key = "receipts/\(Self.day(start).replacingOccurrences(of: "-", with: "/"))/rcpt_\(random.hex(12)).pdf"
            let url = "https://\(DemoHost.objects.name)/\(key)?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIA\(random.hex(16).uppercased())%2F20250615%2Feu-west-1%2Fs3%2Faws4_request"
                + "&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=\(random.hex(64))"
            let pdf = DemoCatalog.receiptPDF(&random)
            var task = exchange(.objects, "PUT", url, headers: ["Content-Type": "application/pdf", "User-Agent": Self.userAgent],
                                requestBody: pdf, status: 200, body: nil, server: 35, at: start, label: "storage",
                                extraResponseHeaders: ["ETag": "\"\(random.hex(32))\""])
            task.type = .upload
            task.usesLogger = true
            return task

        case .promoVideo:
            let url = "https://\(DemoHost.cdn.name)/media/promo-summer-1080p.mp4"
            var task = exchange(.cdn, "GET", url, headers: ["Accept": "*/*", "User-Agent": Self.userAgent], status: 200,
                                body: nil, contentType: "video/mp4", server: 20, at: start, label: "images",
                                responseSize: Self.videoSize)
            task.type = .download
            task.usesLogger = true
            task.streamedSize = Self.videoSize
            task.taskDescription = "warm the transcoder cache"
            return task
        }
    }

    /// 12 MB: more than the store's default 8 MiB body limit.
    static let videoSize = 12_400_000

    // MARK: Building tasks

    static let userAgent = "shop-api/3.14.2 AsyncHTTPClient/1.21.2"

    private mutating func apiHeaders(user: String?) -> [String: String] {
        var headers = [
            "Accept": "application/json", "Accept-Encoding": "gzip, br", "Authorization": "Bearer " + serviceToken,
            "User-Agent": Self.userAgent, "X-Request-ID": random.requestID(),
            "traceparent": "00-\(random.traceID())-\(random.hex(16))-01",
        ]
        if let user { headers["X-User-ID"] = user }
        if random.chance(0.3) { headers["X-Forwarded-For"] = clientIP }
        return headers
    }

    private static func problem(_ status: Int, _ detail: String) -> Data {
        Data(#"{"type":"about:blank","title":"\#(DemoFormat.reason(status))","status":\#(status),"detail":"\#(detail)"}"#.utf8)
    }

    /// A completed exchange with its response, body and metrics.
    private mutating func exchange(
        _ host: DemoHost, _ method: String, _ url: String, headers: [String: String], requestBody: Data? = nil, status: Int,
        body: Data?, contentType: String = "application/json", server: Double, at start: Date, label: String = "http.client",
        extraResponseHeaders: [String: String] = [:], responseSize: Int? = nil
    ) -> DemoTask {
        let request = NetworkRequest(
            url: URL(string: url), method: method, headers: headers, body: requestBody,
            timeout: host.name == DemoHost.payments.name ? 30 : 10)
        let size = responseSize ?? body?.count ?? 0
        var responseHeaders = [
            "Date": DemoHTTP.date(start), "Server": host.server, "Content-Length": "\(size)",
        ]
        if size > 0 { responseHeaders["Content-Type"] = contentType + (contentType.hasPrefix("application/") && contentType.hasSuffix("json") ? "; charset=utf-8" : "") }
        if let requestID = headers["X-Request-ID"] { responseHeaders["X-Request-ID"] = requestID }
        responseHeaders.merge(extraResponseHeaders) { $1 }
        let response = NetworkResponse(url: request.url, statusCode: status, headers: responseHeaders)
        let timing = DemoTiming(host: host, start: start, requestBytes: requestBody?.count ?? 0, responseBytes: size,
                                serverMilliseconds: random.milliseconds(typical: server), random: &random)
        let transaction = timing.transaction(request: request, response: response)
        let metrics = NetworkMetrics(taskInterval: DateInterval(start: start, end: timing.end), transactions: [transaction])
        return DemoTask(
            id: UUID(), label: label, request: request, response: response, responseBody: body, metrics: metrics,
            createdAt: start, duration: timing.end.timeIntervalSince(start), usesLogger: random.chance(0.55))
    }

    /// A request that got no answer within `seconds`.
    private mutating func timeout(
        _ host: DemoHost, _ method: String, _ url: String, headers: [String: String], requestBody: Data? = nil, after seconds: Double,
        at start: Date, label: String = "http.client"
    ) -> DemoTask {
        failure(host, method, url, headers: headers, requestBody: requestBody, error: .timedOut, "The request timed out.",
                after: seconds, at: start, label: label)
    }

    private mutating func failure(
        _ host: DemoHost, _ method: String, _ url: String, headers: [String: String], requestBody: Data? = nil,
        error code: URLError.Code, _ description: String, after seconds: Double, at start: Date, label: String = "http.client"
    ) -> DemoTask {
        let request = NetworkRequest(url: URL(string: url), method: method, headers: headers, body: requestBody, timeout: seconds)
        let end = start.addingTimeInterval(seconds)
        let timing = DemoTiming(host: host, start: start, requestBytes: requestBody?.count ?? 0, responseBytes: 0,
                                serverMilliseconds: 0, random: &random)
        let transaction = timing.transaction(request: request, response: nil, failure: code)
        let metrics = NetworkMetrics(taskInterval: DateInterval(start: start, end: end), transactions: [transaction])
        let error = URLError(code, userInfo: [NSLocalizedDescriptionKey: description])
        return DemoTask(
            id: UUID(), label: label, request: request, error: error, metrics: metrics, createdAt: start,
            duration: seconds, usesLogger: random.chance(0.55))
    }

    /// Puts a `301` from `insecure` before the task's transaction, as a client following a
    /// redirect to HTTPS records it.
    private mutating func redirect(_ task: inout DemoTask, from insecure: String) {
        guard var metrics = task.metrics, let final = metrics.transactions.first, let url = URL(string: insecure) else { return }
        var first = NetworkRequest(url: url, method: task.request.method, headers: task.request.headers)
        first.timeout = task.request.timeout
        let hop = 1 + random.double(0..<3)
        let start = task.createdAt
        let response = NetworkResponse(url: url, statusCode: 301, headers: [
            "Location": task.request.url?.absoluteString ?? "", "Content-Length": "0", "Server": "cloudfront", "Date": DemoHTTP.date(start),
        ])
        let ms = { (value: Double) in start.addingTimeInterval(value / 1000) }
        var insecureHop = NetworkTransactionMetrics(
            fetchType: .networkLoad, request: first, response: response, fetchStart: ms(0.1), domainLookupStart: ms(0.2),
            domainLookupEnd: ms(2), connectStart: ms(2), connectEnd: ms(2 + hop), requestStart: ms(2.2 + hop),
            requestEnd: ms(2.3 + hop), responseStart: ms(2.3 + 2 * hop), responseEnd: ms(2.4 + 2 * hop), networkProtocol: "http/1.1",
            localAddress: "10.12.2.17", localPort: random.int(32_768...60_999), remoteAddress: DemoHost.cdn.address, remotePort: 80)
        insecureHop.requestHeaderBytes = 180
        insecureHop.responseHeaderBytes = 210
        // The secure transaction follows the redirect.
        let shift = (2.5 + 2 * hop) / 1000
        metrics.transactions = [insecureHop, DemoTiming.shifted(final, by: shift)]
        metrics.redirectCount = 1
        task.duration += shift
        metrics.taskInterval = DateInterval(start: start, duration: task.duration)
        task.metrics = metrics
    }

    private static func day(_ date: Date) -> String {
        DemoFormat.day(date)
    }
}
