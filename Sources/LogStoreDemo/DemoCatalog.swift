import Foundation

/// The bodies of the demo's network tasks: a fictional shop's catalog (products, pages,
/// categories, search results), carts and orders, feature flags, large CSV and JSON exports, and
/// images.
///
/// Bodies that a real service returns unchanged for a while (a catalog page, a product, the
/// flags, an image, a day's export) are built once and reused, so the same bytes are stored
/// many times: that is what the store's deduplication is for, and it keeps the demo fast.
struct DemoCatalog {
    struct Product {
        var sku: String
        var name: String
        var category: String
        var priceCents: Int
        var stock: Int
        var rating: Double
        var reviews: Int
        var tags: [String]
        var json: String
    }

    let products: [Product]
    static let pageSize = 24
    /// The products whose images the demo fetches.
    static let productsWithImages = 40
    static let categories = ["outdoor", "kitchen", "office", "audio", "lighting", "garden", "travel", "fitness"]
    static let searchTerms = [
        "tent", "coffee grinder", "desk lamp", "usb-c cable", "headphones", "water bottle", "backpack",
        "standing desk", "yoga mat", "led strip",
    ]

    private var pages: [Int: Data] = [:]
    private var details: [String: Data] = [:]
    private var searches: [String: Data] = [:]
    private var images: [String: Data] = [:]
    private var exports: [String: Data] = [:]
    static let categoriesBody = categoriesJSON()
    static let flagsBody = flagsJSON()

    init(_ random: inout DemoRandom) {
        let adjectives = [
            "Compact", "Classic", "Ultralight", "Rugged", "Smart", "Quiet", "Foldable", "Wireless", "Ceramic",
            "Bamboo", "Heated", "Modular",
        ]
        let nouns = [
            "Tent", "Coffee Grinder", "Desk Lamp", "Headphones", "Water Bottle", "Backpack", "Standing Desk",
            "Yoga Mat", "LED Strip", "Kettle", "Hammock", "Speaker", "Chair", "Planter", "Suitcase",
        ]
        var products: [Product] = []
        for index in 0..<(Self.pageSize * 8) {
            let name = "\(random.pick(adjectives)) \(random.pick(nouns))"
            let sku = "SKU-\(10_000 + index * 37)"
            let category = Self.categories[index % Self.categories.count]
            let price = random.int(5...450) * 100 + random.pick([0, 49, 90, 99])
            let stock = random.chance(0.1) ? 0 : random.int(1...500)
            let rating = Double(random.int(28...50)) / 10
            let reviews = random.int(0...4800)
            let tags = (0..<random.int(1...3)).map { _ in random.pick(["bestseller", "new", "eco", "sale", "gift", "limited"]) }
            var product = Product(
                sku: sku, name: name, category: category, priceCents: price, stock: stock, rating: rating,
                reviews: reviews, tags: Array(Set(tags)).sorted(), json: "")
            product.json = Self.productJSON(product)
            products.append(product)
        }
        self.products = products
    }

    // MARK: JSON API bodies

    /// One page of the product list (about 12 KB), the same bytes every time it is asked for.
    mutating func page(_ number: Int) -> Data {
        if let cached = pages[number] { return cached }
        let start = ((number - 1) * Self.pageSize) % products.count
        let items = products[start..<(start + Self.pageSize)].map(\.json).joined(separator: ",")
        let head = #"{"page":\#(number),"per_page":\#(Self.pageSize),"total":\#(products.count),"#
        let tail = #""links":{"next":"/v1/products?page=\#(number + 1)&per_page=\#(Self.pageSize)"}}"#
        let body = Data((head + #""items":[\#(items)],"# + tail).utf8)
        pages[number] = body
        return body
    }

    /// A product's details: its list entry plus a description and its images.
    mutating func detail(_ product: Product) -> Data {
        if let cached = details[product.sku] { return cached }
        let description = "The \(product.name.lowercased()) you will keep for years: tested outdoors for 300 days, "
            + "backed by a 2-year warranty and shipped in plastic-free packaging."
        var json = product.json
        json.removeLast()
        json += #","description":"\#(description)","images":["#
            + #"{"url":"https://cdn.shop.example/img/\#(product.sku)/800x600.jpg","width":800,"height":600},"#
            + #"{"url":"https://cdn.shop.example/img/\#(product.sku)/200x150.png","width":200,"height":150}],"#
            + #""shipping":{"weight_grams":\#(product.priceCents % 4000 + 200),"ships_in_days":\#(product.stock > 0 ? 1 : 14)}}"#
        let body = Data(json.utf8)
        details[product.sku] = body
        return body
    }

    /// The results for one of ``searchTerms``.
    mutating func search(_ term: String) -> Data {
        if let cached = searches[term] { return cached }
        let needle = term.split(separator: " ").first.map { String($0).lowercased() } ?? term
        var hits = products.filter { $0.name.lowercased().contains(needle) }
        if hits.isEmpty { hits = Array(products.prefix(3)) }
        let items = hits.prefix(20).map { #"{"sku":"\#($0.sku)","name":"\#($0.name)","score":\#(Double($0.reviews % 1000) / 1000)}"# }
        let body = Data(
            #"{"query":"\#(term)","took_ms":\#(term.count * 3),"total":\#(hits.count),"hits":[\#(items.joined(separator: ","))]}"#.utf8)
        searches[term] = body
        return body
    }

    /// A cart: different for every user and moment.
    func cart(user: String, _ random: inout DemoRandom) -> Data {
        var total = 0
        let lines = (0..<random.int(1...4)).map { _ -> String in
            let product = random.pick(products)
            let quantity = random.int(1...3)
            total += product.priceCents * quantity
            return #"{"sku":"\#(product.sku)","name":"\#(product.name)","quantity":\#(quantity),"unit_price":\#(Self.price(product.priceCents))}"#
        }
        return Data(
            #"{"user_id":"\#(user)","currency":"EUR","items":[\#(lines.joined(separator: ","))],"total":\#(Self.price(total))}"#.utf8)
    }

    /// An order as the orders service returns it after creating it.
    func order(id: String, user: String, _ random: inout DemoRandom) -> (request: Data, response: Data) {
        let product = random.pick(products)
        let quantity = random.int(1...2)
        let items = #"[{"sku":"\#(product.sku)","quantity":\#(quantity)}]"#
        let address = #"{"name":"\#(random.pick(["Ada Byron", "Grace Hopper", "Alan Turing", "Edsger Dijkstra"]))","#
            + #""city":"\#(random.pick(["Lyon", "Leeds", "Porto", "Graz", "Ghent"]))","country":"\#(random.pick(["FR", "GB", "PT", "AT", "BE"]))"}"#
        let request = #"{"user_id":"\#(user)","items":\#(items),"shipping_address":\#(address),"payment_method":"pm_\#(random.hex(12))"}"#
        let response = #"{"id":"\#(id)","status":"pending_payment","user_id":"\#(user)","items":\#(items),"#
            + #""total":\#(Self.price(product.priceCents * quantity)),"currency":"EUR","shipping_address":\#(address)}"#
        return (Data(request.utf8), Data(response.utf8))
    }

    static func price(_ cents: Int) -> String {
        "\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)"
    }

    private static func productJSON(_ product: Product) -> String {
        let tags = product.tags.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"sku":"\#(product.sku)","name":"\#(product.name)","category":"\#(product.category)","#
            + #""price":{"amount":\#(price(product.priceCents)),"currency":"EUR"},"in_stock":\#(product.stock > 0),"#
            + #""stock":\#(product.stock),"rating":\#(product.rating),"review_count":\#(product.reviews),"tags":[\#(tags)],"#
            + #""thumbnail":"https://cdn.shop.example/img/\#(product.sku)/200x150.png"}"#
    }

    private static func categoriesJSON() -> Data {
        let items = categories.enumerated().map { index, name in
            #"{"id":\#(index + 1),"slug":"\#(name)","name":"\#(name.prefix(1).uppercased() + name.dropFirst())","product_count":\#(24 + index * 7)}"#
        }
        return Data(#"{"categories":[\#(items.joined(separator: ","))]}"#.utf8)
    }

    private static func flagsJSON() -> Data {
        let flags = [
            ("new_checkout", "true", "50"), ("apple_pay", "true", "100"), ("recommendations_v2", "false", "0"),
            ("free_shipping_banner", "true", "100"), ("search_typo_tolerance", "true", "25"), ("dark_mode", "true", "100"),
        ]
        let items = flags.map { #""\#($0.0)":{"enabled":\#($0.1),"rollout_percent":\#($0.2)}"# }
        return Data(#"{"environment":"production","version":412,"flags":{\#(items.joined(separator: ","))}}"#.utf8)
    }

    // MARK: Large bodies

    /// A day's orders as CSV, about `size` bytes; the same bytes for the same day.
    mutating func ordersCSV(day: String, size: Int, _ random: inout DemoRandom) -> Data {
        if let cached = exports[day] { return cached }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size + 200)
        bytes += Array("order_id,created_at,customer_id,sku,quantity,unit_price,currency,status,country\n".utf8)
        let statuses = ["paid", "paid", "paid", "shipped", "shipped", "refunded", "cancelled"]
        let countries = ["FR", "DE", "GB", "NL", "BE", "ES", "IT", "PT", "AT", "SE"]
        var order = 400_000 + random.int(0...90_000)
        var second = 0
        while bytes.count < size {
            order += random.int(1...3)
            second += random.int(1...9)
            let product = products[random.int(0...(products.count - 1))]
            let time = "\(day)T\(Self.two(second / 3600 % 24)):\(Self.two(second / 60 % 60)):\(Self.two(second % 60))Z"
            let row = "ord_\(order),\(time),u_\(random.int(1000...99_999)),\(product.sku),\(random.int(1...4)),"
                + "\(Self.price(product.priceCents)),EUR,\(statuses[Int(random.next() % 7)]),\(countries[Int(random.next() % 10)])\n"
            bytes += Array(row.utf8)
        }
        let body = Data(bytes)
        exports[day] = body
        return body
    }

    /// A month's sales by day and product as JSON, about `size` bytes; the same for the same month.
    mutating func salesReport(month: String, size: Int, _ random: inout DemoRandom) -> Data {
        let key = "report-" + month
        if let cached = exports[key] { return cached }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size + 200)
        bytes += Array(#"{"month":"\#(month)","currency":"EUR","rows":["#.utf8)
        var first = true
        var day = 1
        while bytes.count < size {
            for product in products where bytes.count < size {
                let units = random.int(0...40)
                let row = #"{"day":"\#(month)-\#(Self.two(day))","sku":"\#(product.sku)","category":"\#(product.category)","#
                    + #""units":\#(units),"revenue":\#(Self.price(units * product.priceCents)),"returns":\#(units / 12)}"#
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                bytes += Array(row.utf8)
            }
            day = day % 28 + 1
        }
        bytes += Array("]}".utf8)
        let body = Data(bytes)
        exports[key] = body
        return body
    }

    private static func two(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    // MARK: Images

    /// An image file for `name` (its format from the extension), the same bytes every time.
    mutating func image(_ name: String, width: Int, height: Int, _ random: inout DemoRandom) -> Data {
        if let cached = images[name] { return cached }
        let body: Data
        if name.hasSuffix(".png") {
            body = DemoImages.png(width: width, height: height, &random)
        } else if name.hasSuffix(".gif") {
            body = DemoImages.gif(width: width, height: height)
        } else {
            body = DemoImages.jpeg(width: width, height: height)
        }
        images[name] = body
        return body
    }

    /// A PDF-looking upload: binary, different every time.
    static func receiptPDF(_ random: inout DemoRandom) -> Data {
        var bytes = Array("%PDF-1.7\n%\u{E2}\u{E3}\u{CF}\u{D3}\n".utf8)
        let size = random.int(12_000...60_000)
        bytes.reserveCapacity(size + 16)
        while bytes.count < size {
            let word = random.next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        bytes += Array("\n%%EOF\n".utf8)
        return Data(bytes)
    }
}
