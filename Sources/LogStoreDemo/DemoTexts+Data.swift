import LogStore

extension DemoTexts {
    static let queries = [
        ("SELECT * FROM orders WHERE customer_id = $1 ORDER BY created_at DESC LIMIT 20", "orders"),
        ("SELECT id, name, price FROM products WHERE id = ANY($1)", "products"),
        ("UPDATE carts SET updated_at = now() WHERE id = $1", "carts"),
        ("INSERT INTO order_items (order_id, sku, quantity, price) VALUES ($1, $2, $3, $4)", "order_items"),
        ("SELECT count(*) FROM reviews WHERE product_id = $1 AND approved", "reviews"),
        ("DELETE FROM sessions WHERE expires_at < now()", "sessions"),
    ]

    static func db(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let (sql, table) = random.pick(queries)
        var metadata: LogStore.Metadata = ["table": .string(table), "request_id": .string(random.requestID())]
        switch tier(level) {
        case .detail:
            let ms = random.milliseconds(typical: 2.5)
            metadata["duration_ms"] = .string("\(ms)")
            metadata["rows"] = .string("\(random.int(0...50))")
            return DemoLine(text: "\(sql) (\(ms) ms)", metadata: metadata)
        case .event:
            if level == .notice {
                return DemoLine(text: "migration 2024_06_\(random.int(10...28))_add_\(table)_index applied in \(random.int(200...4000)) ms", metadata: metadata)
            }
            return DemoLine(text: "transaction committed: \(random.int(1...12)) statements on \(table) in \(random.milliseconds(typical: 9)) ms", metadata: metadata)
        case .trouble:
            let ms = random.int(800...6000)
            metadata["duration_ms"] = .string("\(ms)")
            metadata["plan"] = ["node": "Seq Scan", "relation": .string(table), "rows": .string("\(random.int(10_000...2_000_000))")]
            return DemoLine(text: "slow query (\(ms) ms): \(sql)", metadata: metadata)
        case .failure:
            let error = random.pick([
                "deadlock detected (40P01): process \(random.int(1000...9999)) waits for ShareLock on transaction \(random.int(100_000...999_999))",
                "could not serialize access due to concurrent update (40001)",
                "connection reset by peer (postgres-primary.internal:5432)",
            ])
            let text = stackTrace(
                "query failed: \(error)",
                frames: ["PostgresConnection.query(_:binds:) (PostgresConnection.swift", "OrderRepository.save(_:) (OrderRepository.swift"],
                &random)
            return DemoLine(text: text, metadata: metadata)
        }
    }

    static func dbPool(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let inUse = random.int(2...20)
        let metadata: LogStore.Metadata = ["in_use": .string("\(inUse)"), "size": "20", "waiting": .string("\(random.int(0...3))")]
        switch tier(level) {
        case .detail, .event:
            return DemoLine(text: "pool stats: \(inUse)/20 connections in use, \(random.int(0...3)) waiting", metadata: metadata)
        case .trouble:
            return DemoLine(text: "connection lease took \(random.int(250...2000)) ms (pool nearly exhausted: 19/20)", metadata: metadata)
        case .failure:
            return DemoLine(text: "connection pool exhausted: 20/20 in use, \(random.int(20...200)) requests waiting; timing out after 5 s", metadata: metadata)
        }
    }

    static func cache(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let key = random.pick(["user:\(random.int(1000...99_999)):profile", "product:\(random.int(1...20_000))", "cart:\(random.hex(8))", "search:\(random.hex(10))"])
        let metadata: LogStore.Metadata = ["key": .string(key), "node": .string("redis-\(random.int(0...2))")]
        switch tier(level) {
        case .detail:
            if random.chance(0.75) {
                return DemoLine(text: "cache hit \(key) (\(random.milliseconds(typical: 0.4)) ms)", metadata: metadata)
            }
            return DemoLine(text: "cache miss \(key): loaded from db in \(random.milliseconds(typical: 12)) ms, ttl 300 s", metadata: metadata)
        case .event:
            return DemoLine(text: "evicted \(random.int(50...5000)) keys (maxmemory-policy allkeys-lru, used \(random.int(70...95))%)", metadata: metadata)
        case .trouble:
            return DemoLine(text: "cache read timed out after 50 ms for \(key); falling back to database", metadata: metadata)
        case .failure:
            return DemoLine(text: "redis connection lost: ECONNRESET (redis-\(random.int(0...2)).internal:6379); circuit breaker open for 30 s", metadata: metadata)
        }
    }

    static func search(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let query = random.pick(["red shoes", "usb-c cable", "coffee grinder", "desk lamp", "tent 4 person", "ß-test ünïcode"])
        let metadata: LogStore.Metadata = ["query": .string(query), "filters": ["category": .string(random.pick(["shoes", "electronics", "home", "outdoor"])), "in_stock": "true"]]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "query \"\(query)\" returned \(random.int(0...900)) hits in \(random.milliseconds(typical: 14)) ms", metadata: metadata)
        case .event:
            return DemoLine(text: "reindexed \(random.int(100...5000)) documents in \(random.int(1...40)) s", metadata: metadata)
        case .trouble:
            return DemoLine(text: "query \"\(query)\" took \(random.int(1200...5000)) ms (index segment merge in progress)", metadata: metadata)
        case .failure:
            return DemoLine(text: "search cluster unreachable: no healthy shards for index products_v7", metadata: metadata)
        }
    }

    static func storage(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let key = "\(random.pick(["avatars", "invoices", "product-images", "exports"]))/\(random.hex(10)).\(random.pick(["png", "pdf", "jpg", "csv"]))"
        let metadata: LogStore.Metadata = ["bucket": "shop-prod", "key": .string(key)]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "HEAD s3://shop-prod/\(key) 200", metadata: metadata)
        case .event:
            return DemoLine(text: "uploaded \(key) (\(DemoFormat.bytes(Int64(random.int(2_000...4_000_000))))) in \(random.milliseconds(typical: 120)) ms", metadata: metadata)
        case .trouble:
            return DemoLine(text: "disk usage on /var/lib/shop at \(random.int(80...92))%", metadata: metadata)
        case .failure:
            return DemoLine(text: "upload of \(key) failed: SlowDown (503) after 5 retries", metadata: metadata)
        }
    }

    static func images(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let name = "\(random.int(1000...99_999)).jpg"
        let metadata: LogStore.Metadata = ["image": .string(name), "sizes": ["1600x1200", "800x600", "200x150"]]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "decoded \(name) 4032x3024 (EXIF orientation \(random.int(1...8)))", metadata: metadata)
        case .event:
            return DemoLine(text: "resized \(name) to 3 sizes in \(random.milliseconds(typical: 85)) ms", metadata: metadata)
        case .trouble:
            return DemoLine(text: "\(name) is \(random.int(21...60)) MB, above the 20 MB limit: skipped", metadata: metadata)
        case .failure:
            return DemoLine(text: "libvips failed on \(name): VipsJpeg: premature end of JPEG file", metadata: metadata)
        }
    }
}
