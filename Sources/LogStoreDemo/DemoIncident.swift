import LogStore

/// A burst of trouble in the demo data: many errors and warnings from related components within
/// a few seconds, as a real outage looks in a log.
struct DemoIncident {
    enum Kind: CaseIterable {
        case databaseOutage, paymentProviderDown, cacheDown, credentialStuffing
    }

    let kind: Kind
    /// How many messages the burst has.
    let length: Int
    /// Seconds between its messages.
    let spacing: Double
    /// The attacker's address, for credential stuffing.
    let address: String

    init(_ random: inout DemoRandom, maximumSpacing: Double) {
        kind = random.pick(Kind.allCases)
        length = random.int(20...80)
        spacing = min(random.double(0.005..<0.05), maximumSpacing)
        address = random.ipAddress()
    }

    private init(kind: Kind, length: Int, spacing: Double, address: String) {
        self.kind = kind
        self.length = length
        self.spacing = spacing
        self.address = address
    }

    /// The demo's outage: the database gone for minutes (its length and pace are the
    /// generator's).
    static let outage = DemoIncident(kind: .databaseOutage, length: .max, spacing: 0, address: "")

    /// The burst's `step`-th message.
    func message(_ step: Int, _ random: inout DemoRandom) -> (DemoLabel, LogStore.Level, DemoLine) {
        let roll = random.double(0..<1)
        switch kind {
        case .databaseOutage:
            if step == 0 { return (.dbPool, .critical, DemoTexts.dbPool(.critical, &random)) }
            if roll < 0.4 { return (.db, .error, DemoTexts.db(.error, &random)) }
            if roll < 0.8 {
                let path = DemoTexts.path(&random)
                return (.http, .error, DemoLine(
                    text: "GET \(path) 503: database unavailable (pool exhausted)",
                    metadata: ["status": "503", "request_id": .string(random.requestID())]))
            }
            return (.queue, .warning, DemoTexts.queue(.warning, &random))
        case .paymentProviderDown:
            if step == 0 || roll < 0.5 { return (.payments, .error, DemoTexts.payments(.error, &random)) }
            if roll < 0.8 { return (.httpClient, .warning, DemoTexts.httpClient(.warning, &random)) }
            return (.http, .error, DemoLine(
                text: "POST /api/v1/checkout 502: payment provider unavailable",
                metadata: ["status": "502", "request_id": .string(random.requestID()), "user_id": .string(random.userID())]))
        case .cacheDown:
            if step == 0 { return (.cache, .critical, DemoTexts.cache(.critical, &random)) }
            if roll < 0.6 { return (.cache, .warning, DemoTexts.cache(.warning, &random)) }
            return (.db, .warning, DemoTexts.db(.warning, &random))
        case .credentialStuffing:
            let email = random.email()
            if roll < 0.8 {
                return (.auth, .warning, DemoLine(
                    text: "login failed for \(email): invalid password",
                    metadata: ["ip": .string(address), "user_agent": "python-requests/2.32.3"], function: "login(_:)"))
            }
            if roll < 0.95 { return (.ratelimit, .warning, DemoTexts.ratelimit(.warning, &random)) }
            return (.auth, .error, DemoLine(
                text: "account \(email) locked after 10 failed logins from \(address)",
                metadata: ["ip": .string(address)]))
        }
    }
}
