import LogStore

extension DemoTexts {
    static func queue(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let job = random.pick(["send-welcome-email", "generate-invoice", "sync-inventory", "resize-images", "charge-subscription", "export-report"])
        let id = "\(job)#\(random.int(10_000...99_999))"
        var metadata: LogStore.Metadata = ["job": .string(job), "job_id": .string(id), "queue": .string(random.pick(["default", "default", "mail", "billing"]))]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "job \(id) enqueued (priority \(random.int(1...9)), \(random.int(0...400)) waiting)", metadata: metadata)
        case .event:
            return DemoLine(text: "job \(id) completed in \(random.milliseconds(typical: 230)) ms", metadata: metadata)
        case .trouble:
            let attempt = random.int(1...4)
            metadata["attempt"] = .string("\(attempt)")
            return DemoLine(text: "job \(id) failed: timeout; retry \(attempt)/5 in \(1 << attempt) s", metadata: metadata)
        case .failure:
            metadata["attempts"] = ["1", "2", "3", "4", "5"]
            return DemoLine(text: "job \(id) moved to dead-letter queue after 5 attempts: \(random.pick(["SMTP 421 service not available", "inventory service UNAVAILABLE", "invoice template missing"]))", metadata: metadata)
        }
    }

    static func payments(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let amount = "\(random.int(5...900)).\(random.pick(["00", "49", "90", "99"]))"
        let currency = random.pick(["EUR", "USD", "GBP"])
        let charge = "ch_" + random.hex(14)
        var metadata: LogStore.Metadata = [
            "charge_id": .string(charge), "order_id": .string(random.orderID()),
            "amount": ["value": .string(amount), "currency": .string(currency)],
        ]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "webhook received payment_intent.\(random.pick(["created", "processing", "succeeded"])) for \(charge)", metadata: metadata)
        case .event:
            return DemoLine(text: "charge \(charge) succeeded: \(amount) \(currency)", metadata: metadata, function: "charge(_:for:)")
        case .trouble:
            let code = random.pick(["insufficient_funds", "card_declined", "expired_card", "do_not_honor"])
            metadata["decline_code"] = .string(code)
            return DemoLine(text: "charge declined for \(amount) \(currency): \(code)", metadata: metadata)
        case .failure:
            let text = stackTrace(
                "charge \(charge) failed: PaymentError.providerUnavailable(status: 503, retryAfter: 30)",
                frames: ["PaymentService.charge(_:for:) (PaymentService.swift", "CheckoutService.complete(_:) (CheckoutService.swift"],
                &random)
            return DemoLine(text: text, metadata: metadata)
        }
    }

    static func billing(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let invoice = "INV-2024-\(random.int(10_000...99_999))"
        let metadata: LogStore.Metadata = ["invoice": .string(invoice), "account_id": .string("acct_\(random.int(100...9999))")]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "computing tax for \(invoice): \(random.int(1...20)) lines, region \(random.pick(["DE", "FR", "US-CA", "GB"]))", metadata: metadata)
        case .event:
            return DemoLine(text: "invoice \(invoice) generated: \(random.int(1...30)) items, \(DemoFormat.count(random.int(10...9000))).00 USD", metadata: metadata)
        case .trouble:
            return DemoLine(text: "invoice \(invoice): VAT number could not be validated (VIES timeout); using standard rate", metadata: metadata)
        case .failure:
            return DemoLine(text: "invoice \(invoice) not sent: PDF rendering crashed (exit status 139)", metadata: metadata)
        }
    }

    static func email(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let to = random.email()
        let subject = random.pick(["Your receipt", "Welcome!", "Reset your password", "Your order has shipped"])
        let metadata: LogStore.Metadata = ["to": .string(to), "template": .string(subject.lowercased().replacingOccurrences(of: " ", with: "-"))]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "rendered template '\(subject)' (\(random.int(3...40)) KB)", metadata: metadata)
        case .event:
            return DemoLine(text: "sent '\(subject)' to \(to) via smtp.example.net (\(random.milliseconds(typical: 230)) ms)", metadata: metadata)
        case .trouble:
            return DemoLine(text: "soft bounce for \(to): 452 mailbox full", metadata: metadata)
        case .failure:
            return DemoLine(text: "SMTP connection failed: 421 4.7.0 too many connections from 203.0.113.9", metadata: metadata)
        }
    }

    static func notifications(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let user = random.userID()
        let metadata: LogStore.Metadata = ["user_id": .string(user), "platforms": ["apns", "fcm"]]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "push payload for \(user): \(random.int(80...3800)) bytes", metadata: metadata)
        case .event:
            return DemoLine(text: "push sent to \(random.int(1...4)) devices of \(user)", metadata: metadata)
        case .trouble:
            return DemoLine(text: "APNs rejected device token \(random.hex(8))…: BadDeviceToken; removing it", metadata: metadata)
        case .failure:
            return DemoLine(text: "FCM credentials expired: 401 UNAUTHENTICATED; pushes are not delivered", metadata: metadata)
        }
    }

    static func scheduler(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let task = random.pick(["cleanup-sessions", "rebuild-sitemap", "refresh-exchange-rates", "nightly-report", "prune-carts"])
        let metadata: LogStore.Metadata = ["task": .string(task)]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "next run of \(task) in \(random.int(1...59)) min", metadata: metadata)
        case .event:
            return DemoLine(text: "\(task) finished in \(DemoFormat.decimal(random.double(0.2..<40), places: 1)) s", metadata: metadata)
        case .trouble:
            return DemoLine(text: "\(task) skipped: previous run still in progress (started \(random.int(5...50)) min ago)", metadata: metadata)
        case .failure:
            return DemoLine(text: "\(task) failed: lock on scheduler_runs could not be acquired", metadata: metadata)
        }
    }

    static func metrics(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let series = random.int(200...900)
        let metadata: LogStore.Metadata = ["series": .string("\(series)"), "sink": "statsd://127.0.0.1:8125"]
        switch tier(level) {
        case .detail, .event:
            return DemoLine(text: "flushed \(series) series in \(random.milliseconds(typical: 3)) ms", metadata: metadata)
        case .trouble:
            return DemoLine(text: "dropped \(random.int(1...80)) samples: UDP send buffer full", metadata: metadata)
        case .failure:
            return DemoLine(text: "metrics exporter stopped: sendto failed: ENETUNREACH", metadata: metadata)
        }
    }

    static func config(_ level: LogStore.Level, _ random: inout DemoRandom) -> DemoLine {
        let flag = random.pick(["new-checkout", "search-v2", "free-shipping-banner", "async-invoices"])
        let metadata: LogStore.Metadata = ["source": "/etc/shop/config.yaml", "changed": .array([.string(flag), "log_level"])]
        switch tier(level) {
        case .detail:
            return DemoLine(text: "config file unchanged (sha256 \(random.hex(12))…)", metadata: metadata)
        case .event:
            return DemoLine(text: "feature flag \(flag) = on for \(random.pick(["5", "10", "25", "50", "100"]))% of users", metadata: metadata)
        case .trouble:
            return DemoLine(text: "unknown key 'cache.ttl_seconds' in /etc/shop/config.yaml (ignored)", metadata: metadata)
        case .failure:
            return DemoLine(text: "config reload failed: line \(random.int(3...90)): mapping values are not allowed here; keeping the previous configuration", metadata: metadata)
        }
    }
}
