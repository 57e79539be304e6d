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
            data = try Files.contents(of: url)
        } catch {
            throw LogStoreError.storeInvalid(directory, reason: "manifest.json is missing or unreadable")
        }
        let manifest: Manifest
        do {
            manifest = try StoreJSON.decoder.decode(Manifest.self, from: data)
        } catch {
            throw LogStoreError.storeInvalid(directory, reason: "manifest.json is not a valid manifest (\(error))", cause: error)
        }
        guard manifest.version.major <= LogStore.Version.store.major else {
            throw LogStoreError.unsupportedVersion(found: manifest.version, supported: .store)
        }
        return manifest
    }

    /// Removes what manifest writes of killed processes left in `directory`, those older than
    /// `age` seconds (the opener's crash-cleanup age: any, for the store's only writer).
    static func removeAbandonedWrites(in directory: URL, olderThan age: TimeInterval) {
        Files.removeAbandonedAtomicWrites(of: directory.appendingPathComponent(fileName), olderThan: age)
    }

    /// Writes the manifest of a new store, unless another process wrote one first: then that
    /// one is the store's, and it is returned. Two processes creating one store at once agree
    /// on its identity.
    func create(in directory: URL) throws -> Manifest {
        let data = try StoreJSON.encoder.encode(self)
        if try Files.writeNew(data, to: directory.appendingPathComponent(Self.fileName)) { return self }
        return try Self.read(in: directory)
    }

    /// Writes the manifest atomically (a temporary file, synced, then renamed over the old one),
    /// owner-only.
    func write(in directory: URL) throws {
        let data = try StoreJSON.encoder.encode(self)
        try Files.writeAtomically(data, to: directory.appendingPathComponent(Self.fileName))
    }
}
