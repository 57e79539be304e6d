import Foundation

/// `manifest.json`: the store's identity and bookkeeping, beside the database.
struct Manifest: Codable, Sendable, Equatable {
    /// The store's identity.
    var storeId: UUID
    /// The store format version (``LogStore/Version/store``).
    var version: LogStore.Version
    /// When the store was created.
    var creationDate: Date
    /// When the store was last swept.
    var lastSweepDate: Date?
    /// What the last sweep did (absent in manifests written before sweeps were recorded).
    var lastSweep: LogStore.SweepReport?

    static let fileName = "manifest.json"

    static func new() -> Manifest {
        Manifest(storeId: UUID(), version: .store, creationDate: Date(), lastSweepDate: nil, lastSweep: nil)
    }

    /// Reads and validates the manifest of the store at `directory`.
    ///
    /// - Throws: ``LogStoreError/storeInvalid(_:reason:)`` for a missing or unreadable file,
    ///   ``LogStoreError/unsupportedVersion(found:supported:)`` for a newer format.
    static func read(in directory: URL) throws -> Manifest {
        let url = directory.appendingPathComponent(fileName)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw LogStoreError.storeInvalid(directory, reason: "manifest.json is missing or unreadable")
        }
        let manifest: Manifest
        do {
            manifest = try StoreJSON.decoder.decode(Manifest.self, from: data)
        } catch {
            throw LogStoreError.storeInvalid(directory, reason: "manifest.json is not a valid manifest (\(error))")
        }
        guard manifest.version.major <= LogStore.Version.store.major else {
            throw LogStoreError.unsupportedVersion(found: manifest.version, supported: .store)
        }
        return manifest
    }

    /// Writes the manifest atomically (a temporary file, synced, then renamed over the old one),
    /// owner-only.
    func write(in directory: URL) throws {
        let data = try StoreJSON.encoder.encode(self)
        try StoreFiles.writeAtomically(data, to: directory.appendingPathComponent(Self.fileName))
    }
}

/// The JSON settings of everything the store writes itself (manifest, snapshots, `--json`).
enum StoreJSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601withFractionalSeconds
        return encoder
    }()

    static let compactEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601withFractionalSeconds
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601withFractionalSeconds
        return decoder
    }()
}

extension JSONEncoder.DateEncodingStrategy {
    /// ISO 8601 with milliseconds, in UTC: readable, sortable and exact enough for logs.
    static var iso8601withFractionalSeconds: JSONEncoder.DateEncodingStrategy {
        .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601.string(from: date))
        }
    }
}

extension JSONDecoder.DateDecodingStrategy {
    /// Reads what ``JSONEncoder/DateEncodingStrategy/iso8601withFractionalSeconds`` writes (and
    /// timestamps without fractions).
    static var iso8601withFractionalSeconds: JSONDecoder.DateDecodingStrategy {
        .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ISO8601.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO 8601 date")
            }
            return date
        }
    }
}

/// ISO 8601 formatting without sharing a non-Sendable formatter across threads.
enum ISO8601 {
    static func string(from date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    static func date(from text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
